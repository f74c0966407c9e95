import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { nixBuild, nixString, standInDir } from "../support/nix.js";
import { agentUid } from "./harness.js";

/**
 * Runs a program on the host as the workspaces' owner (the user the attacks aim at), with a home
 * of the test's own and a git identity; resolves with its stdout (rejects when it fails).
 */
export async function asOwner(
  home: string,
  program: string,
  args: string[],
  cwd = "/",
  extraEnv: Record<string, string> = {},
): Promise<string> {
  const result = await execa(program, args, {
    uid: agentUid,
    gid: agentUid,
    cwd,
    extendEnv: false,
    env: {
      HOME: home,
      PATH: "/usr/local/bin:/usr/bin:/bin",
      GIT_AUTHOR_NAME: "Owner",
      GIT_AUTHOR_EMAIL: "o@example.com",
      GIT_COMMITTER_NAME: "Owner",
      GIT_COMMITTER_EMAIL: "o@example.com",
      ...extraEnv,
    },
  });
  return result.stdout;
}

/**
 * Makes the stand-in NixOS system (test/nix/stand-in/nixos-system.nix: no nixpkgs here) the
 * prebuilt system of each of `templates`, so `up --runtime nspawn-nix` boots it; `--runtime
 * nspawn` still gives those templates a host root.
 */
export function installStandInSystem(
  hostDir: string,
  extraEnv: Record<string, string>,
  templates: readonly string[],
): void {
  const system = nixBuild(
    `import ${nixString(join(standInDir, "nixos-system.nix"))} { uid = ${agentUid}; gid = ${agentUid}; }`,
  );
  const systems = join(hostDir, "systems");
  mkdirSync(systems, { recursive: true });
  for (const template of templates) symlinkSync(system, join(systems, template));
  extraEnv.FORAGE_SYSTEMS_DIR = systems;
}

/**
 * The shell prelude of an attack inside a sandbox: `$B` runs busybox's applets (the stand-in
 * NixOS system has no rm or mv of its own; its busybox is the system's, a host root's the host's).
 */
export const busyboxPrelude = 'B=/run/current-system/bin/busybox; [ -x "$B" ] || B=busybox; ';
