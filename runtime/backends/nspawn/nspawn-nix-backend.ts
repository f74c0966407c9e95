import { readdir } from "node:fs/promises";
import type { TemplateModel } from "../../../generator/model/model.js";
import type { RuntimeContext } from "../../core/context.js";
import type { RuntimePaths } from "../../core/paths.js";
import { findSystem, prepareNixRoot, requireSystem } from "./nix-root.js";
import { systemSshBinds } from "../../provision/system-ssh-binds.js";
import type { SandboxMetadata } from "../../state/metadata.js";
import { templateNamePattern } from "../../../generator/lib/template-name.js";
import type { Backend } from "../backend.js";
import { nspawnUnavailable } from "../shared/host-tools.js";
import { nixosInside } from "../shared/nixos-inside.js";
import { nspawnQueries, startNspawn, stopNspawn, type NspawnRoot, type RootLayout } from "./nspawn-sandbox.js";

/**
 * NixOS root: the template's prebuilt system booted from its init on an empty root, with the
 * Nix store read-only. The host's Nix daemon socket is not bound: a sandbox that could build
 * would reach the network through fixed-output derivations, around its network policy.
 */
async function layOutNixRoot(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  root: string,
  template: TemplateModel,
): Promise<RootLayout> {
  const system = await requireSystem(context.paths.systemsDir, template.name);
  await prepareNixRoot(root);
  return {
    binds: [
      { source: "/nix/store", target: "/nix/store", readOnly: true },
      ...(await systemSshBinds(context, metadata, template)),
    ],
    payload: { kind: "init", init: `${system}/init` },
    system,
  };
}

const nixRoot: NspawnRoot = { payload: "init", layOut: layOutNixRoot };

/** Templates that have a prebuilt system (a link into /nix/store with an init). */
async function templatesWithSystems(systems: string): Promise<string[]> {
  const entries = (await readdir(systems).catch(() => [] as string[])).filter((name) => templateNamePattern.test(name));
  const found = await Promise.all(
    entries.map(async (name) => ((await findSystem(systems, name)) === undefined ? undefined : name)),
  );
  return found.filter((name): name is string => name !== undefined).sort();
}

/** systemd-nspawn booting the template's prebuilt NixOS system, which opens the session and runs sshd itself. */
export const nspawnNixBackend: Backend = {
  name: "nspawn-nix",
  capabilities: {
    nixosConfig: true,
    networkIsolation: true,
    ephemeralRoot: true,
    ssh: true,
    generatedFiles: true,
    resourceLimits: true,
    gracefulShutdown: true,
    pinnedBinds: true,
    ownInit: true,
    checkpoint: false,
  },
  inside: nixosInside,
  describe: async (paths: RuntimePaths) =>
    `systemd-nspawn booting the template's prebuilt NixOS system (${paths.systemsDir}/<template>; here: ${(await templatesWithSystems(paths.systemsDir)).join(", ") || "none"})`,
  async unavailable(paths, template) {
    const host = await nspawnUnavailable();
    if (host !== undefined) return host;
    if (template !== undefined)
      return (await findSystem(paths.systemsDir, template)) === undefined
        ? `template "${template}" has no prebuilt NixOS system in ${paths.systemsDir}`
        : undefined;
    return (await templatesWithSystems(paths.systemsDir)).length === 0
      ? `no prebuilt template systems in ${paths.systemsDir} (the NixOS module installs them)`
      : undefined;
  },
  preflight: async (context, template) => void (await requireSystem(context.paths.systemsDir, template.name)),
  start: (context, metadata, template) => startNspawn(context, metadata, template, nixRoot),
  stop: (context, metadata, graceSeconds) => stopNspawn(context, metadata, graceSeconds, nixRoot.payload),
  ...nspawnQueries,
};
