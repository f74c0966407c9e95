import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../generator/config/load-config.js";
import { resolveModel } from "../../../generator/model/resolve.js";
import {
  definitionPath,
  extraContainerBackend as backend,
} from "../../../runtime/backends/extra-container/extra-container-backend.js";
import { runtimePaths } from "../../../runtime/core/paths.js";
import type { RuntimeContext } from "../../../runtime/core/context.js";
import { sandboxMetadataSchema, type SandboxMetadata } from "../../../runtime/state/metadata.js";
import { execCommand } from "../../../runtime/sandbox/exec.js";
import { cgroupHierarchies } from "../../../runtime/cgroups/hierarchies.js";
import { leaderOf } from "../../../runtime/backends/shared/nspawn-leader.js";
import { execa } from "execa";
import { isRoot, toolsAvailable } from "../../support/tools.js";

/*
 * The extra-container backend drives two host tools that cannot run here (extra-container needs
 * NixOS and nixpkgs; systemctl needs systemd as init). Small stand-ins in stand-in-bin/ record
 * the calls and keep the container's state; the definition file is checked by the real Nix
 * parser (and evaluated for real in test/nix/container-definitions.test.ts). The unit's processes
 * are real (an "nspawn" and its child, the container's init, in real namespaces and a real cgroup
 * named like the unit), so the tmpfs caps, the recorded cgroup and an exec through the real
 * forage-enter are observed on the kernel's side.
 */
const tools = toolsAvailable("nix-instantiate", "nft", "unshare", "nsenter", "findmnt");
const standInBin = fileURLToPath(new URL("../stand-in-bin", import.meta.url));

// Starting loads the sandbox's real host-side nftables table (slot 250, removed afterwards).
describe.skipIf(!tools.run || !isRoot())("the extra-container runtime backend", () => {
  const dir = mkdtempSync(join(tmpdir(), "forage-extra-"));
  const log = join(dir, "calls.log");
  let context: RuntimeContext;
  let sandbox: SandboxMetadata;

  beforeAll(async () => {
    const config = join(dir, "forage.yaml");
    writeFileSync(
      config,
      `user: nobody\ntemplates:\n  coder:\n    agents: { sh: { package: bash, executable: bash } }\n    ssh: true\n    resourceLimits: { tasksMax: 64, memoryMax: 1G, cpuQuota: 150% }\n`,
    );
    const settings = resolveModel((await loadConfig(config)).config, config);
    const paths = runtimePaths(join(dir, "state"), {
      FORAGE_SECRETS_DIR: join(dir, "secrets"),
      FORAGE_GENERATED_DIR: "/etc/forage/generated",
    });
    mkdirSync(paths.sandboxesDir, { recursive: true });
    const hostKeys = join(paths.sandboxesDir, "demo.ssh");
    mkdirSync(hostKeys);
    context = { settings, paths, warn: () => undefined };
    mkdirSync(join(dir, "ws"));
    sandbox = {
      version: 1,
      name: "demo",
      template: "coder",
      slot: 250,
      containerName: "f250",
      runtime: "extra-container",
      createdAt: "2026-11-21T00:00:00Z",
      phase: "creating",
      creatorPid: process.pid,
      workspace: { mode: "direct", hostPath: join(dir, "ws"), managed: false },
      agentIdentity: {},
      mounts: [],
      uid: 1000,
      gid: 100,
      pid: null,
      startedAt: null,
      system: null,
      cgroup: null,
      muxConfig: null,
      authorizedKeys: ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBY2y5Z6n1qOvhNKO9GmD9F5vzV3ZKkPNMwA2hk9nQyH alice"],
      secrets: [],
      network: { mode: "none", allow: [], deny: [], sni: false },
      guard: null,
      sshAgent: null,
      pushGate: null,
    };
    process.env.PATH = `${standInBin}:${process.env.PATH ?? ""}`;
    Object.assign(process.env, { FORAGE_STAND_IN_LOG: log, FORAGE_STAND_IN_STATE: dir });
  });
  beforeEach(() => writeFileSync(log, ""));
  afterAll(async () => {
    // A failed assertion must not leave the container's processes, groups or namespace behind.
    await execa("systemctl", ["stop", "container@f250.service"], { reject: false });
    rmSync(dir, { recursive: true, force: true });
    await execa("nft", ["delete", "table", "inet", "forage_f250"], { reject: false });
  });
  const calls = (): string[] => readFileSync(log, "utf8").trim().split("\n");
  /** The unit's groups, as the stand-in made them (systemd's, on a real host). */
  const unitGroups = (): string[] => readFileSync(join(dir, "f250.cgroups"), "utf8").trim().split("\n");
  /** The mount on top at `point` in process `pid`'s view: [its mount options, the filesystem's]. */
  const mountAt = (pid: number, point: string): [string, string] => {
    const line = readFileSync(`/proc/${pid}/mountinfo`, "utf8")
      .split("\n")
      .filter((entry) => entry.split(" ")[4] === point)
      .at(-1);
    const [left = "", right = ""] = (line ?? "").split(" - ");
    return [left.split(" ")[5] ?? "", right.split(" ")[2] ?? ""];
  };
  let started: SandboxMetadata;

  it("writes the sandbox's definition, creates and starts the container, sets the template's limits on its unit, and records its pid and cgroup", async () => {
    started = await backend.start(context, sandbox, context.settings.templates[0]!);
    const file = definitionPath(context.paths, "demo");
    expect(calls()).toEqual([
      `extra-container create --start ${file}`,
      "systemctl set-property --runtime container@f250.service TasksMax=64 MemoryMax=1G CPUQuota=150%",
      "systemctl show --property=MainPID --value container@f250.service",
    ]);
    const groups = unitGroups();
    expect(
      groups.every(
        (group) => group.startsWith("/sys/fs/cgroup/") && group.endsWith("/forage-test.slice/container@f250.service"),
      ),
    ).toBe(true);
    expect(started).toMatchObject({
      pid: Number(readFileSync(join(dir, "f250.pid"), "utf8")),
      cgroup: { directories: groups, procsFiles: groups.map((group) => `${group}/cgroup.procs`) },
    });
    // What the metadata file will hold passes its schema (cgroup paths under /sys/fs/cgroup/).
    expect(sandboxMetadataSchema.safeParse(started).success).toBe(true);
    const definition = readFileSync(file, "utf8");
    expect(definition).toContain('import "/etc/forage/generated/containers/coder.nix"');
    expect(definition).toContain('hostAddress = "10.100.250.1";');
    expect(definition).toContain('"/etc/ssh/ssh_host_ed25519_key" = {');
    expect(definition).not.toContain('secretsDir = "');
    // /proc/keys and /proc/key-users masked (the host user's key names), as on the nspawn runtimes.
    expect(definition).toContain('"/proc/keys" = {\n      hostPath = "/dev/null";\n      isReadOnly = true;');
    expect(definition).toContain('"/proc/key-users" = {\n      hostPath = "/dev/null";');
    expect(await backend.isRunning(context, started)).toBe(true);
  });

  it("caps the container's /run, /tmp and /dev/shm below the unit's 1G memory limit, their flags kept", async () => {
    const leader = await leaderOf(started.pid!);
    expect(leader).toBeDefined();
    // 1/16, 1/4 and 1/8 of 1G (nspawn's, and the stand-in's, are half the host's RAM).
    expect([mountAt(leader!, "/run"), mountAt(leader!, "/tmp"), mountAt(leader!, "/dev/shm")]).toEqual([
      ["rw,nosuid,nodev,relatime", "rw,size=65536k,mode=755"],
      ["rw,nosuid,nodev,relatime", "rw,size=262144k"],
      ["rw,nosuid,nodev,relatime", "rw,size=131072k"],
    ]);
  });

  it("runs an exec'd command in the container init's own group inside the unit's cgroup", async () => {
    const leader = (await leaderOf(started.pid!))!;
    const [program = "", ...args] = await execCommand(context, started, ["/bin/sleep", "30"], {
      asRoot: true,
      cwd: "/",
    });
    expect(program).toMatch(/dist\/native\/forage-enter$/);
    const enter = spawn(program, args, { stdio: "ignore" });
    try {
      // forage-enter forks into the container's pid namespace; its child becomes the command.
      const command = await until(async () => {
        const child = Number(
          readFileSync(`/proc/${enter.pid ?? 0}/task/${enter.pid ?? 0}/children`, "utf8")
            .trim()
            .split(" ")[0],
        );
        return child > 0 && readFileSync(`/proc/${child}/comm`, "utf8") === "sleep\n" ? child : undefined;
      });
      const inUnit = async (pid: number): Promise<string[]> =>
        (await cgroupHierarchies(pid))
          .map((h) => `${h.mount}${h.path}`)
          .filter((group) => unitGroups().some((unit) => group.startsWith(`${unit}/`)));
      expect(await inUnit(command)).toEqual(unitGroups().map((unit) => `${unit}/payload`));
      expect(await inUnit(command)).toEqual(await inUnit(leader));
    } finally {
      enter.kill("SIGKILL");
    }
  });

  it("stops the container's unit, and destroys only what extra-container has installed", async () => {
    const running = started;
    const groups = unitGroups();
    await backend.stop(context, running, 10);
    expect(await backend.isRunning(context, running)).toBe(false);
    // systemd's stop took the unit's processes and groups (the backend leaves its cgroup to systemd).
    expect(await leaderOf(running.pid!)).toBeUndefined();
    expect(groups.filter((group) => existsSync(group))).toEqual([]);
    await backend.destroy(context, running);
    await backend.destroy(context, running);
    expect(calls()).toEqual([
      "systemctl is-active --quiet container@f250.service",
      "systemctl stop container@f250.service",
      "systemctl is-active --quiet container@f250.service",
      "extra-container list",
      "extra-container destroy f250",
      "extra-container list",
    ]);
  });

  it("refuses a protected name that is a symbolic link: NixOS binds by path and could not hold it in place", async () => {
    const ws = join(dir, "linked");
    mkdirSync(join(ws, "real"), { recursive: true });
    symlinkSync("real", join(ws, ".vscode"));
    const linked = { ...sandbox, workspace: { ...sandbox.workspace, hostPath: ws } };
    await expect(backend.start(context, linked, context.settings.templates[0]!)).rejects.toMatchObject({
      kind: "usage",
      message: expect.stringContaining(
        `${ws}/.vscode is a symbolic link, and the extra-container runtime cannot hold a link in place`,
      ) as unknown,
    });
    expect(calls()).not.toContain(`extra-container create --start ${definitionPath(context.paths, "demo")}`);
  });

  it("reports a failed create as a container error with what extra-container said", async () => {
    process.env.FORAGE_STAND_IN_FAIL = "create";
    try {
      await expect(backend.start(context, sandbox, context.settings.templates[0]!)).rejects.toMatchObject({
        kind: "container",
        message: expect.stringContaining(
          "could not create container f250: extra-container create exited with 1:\nerror: building the container failed",
        ) as unknown,
      });
      // Nothing half-started stays: the host-side table loaded before the create is gone again.
      expect((await execa("nft", ["list", "table", "inet", "forage_f250"], { reject: false })).exitCode).not.toBe(0);
    } finally {
      delete process.env.FORAGE_STAND_IN_FAIL;
    }
  });
});

/** Polls `found` (errors count as not yet) until it gives a value; fails after 5 s. */
async function until<T>(found: () => Promise<T | undefined>): Promise<T> {
  for (let tries = 0; tries < 250; tries++) {
    const value = await found().catch(() => undefined);
    if (value !== undefined) return value;
    await sleep(20);
  }
  throw new Error("not found within 5 s");
}
