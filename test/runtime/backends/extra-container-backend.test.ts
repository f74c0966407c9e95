import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../generator/config/load-config.js";
import { resolveModel } from "../../../generator/model/resolve.js";
import { definitionPath, extraContainerBackend as backend } from "../../../runtime/backends/extra-container/extra-container-backend.js";
import { runtimePaths } from "../../../runtime/core/paths.js";
import type { RuntimeContext } from "../../../runtime/core/context.js";
import type { SandboxMetadata } from "../../../runtime/state/metadata.js";
import { execa } from "execa";
import { isRoot, toolsAvailable } from "../../support/tools.js";

/*
 * The extra-container backend drives two host tools that cannot run here (extra-container needs
 * NixOS and nixpkgs; systemctl needs systemd as init). Small stand-ins in stand-in-bin/ record
 * the calls and keep the container's state; the definition file is checked by the real Nix
 * parser (and evaluated for real in test/nix/container-definitions.test.ts).
 */
const tools = toolsAvailable("nix-instantiate", "nft");
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
    const paths = runtimePaths(join(dir, "state"), { FORAGE_SECRETS_DIR: join(dir, "secrets"), FORAGE_GENERATED_DIR: "/etc/forage/generated" });
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
    };
    process.env.PATH = `${standInBin}:${process.env.PATH ?? ""}`;
    Object.assign(process.env, { FORAGE_STAND_IN_LOG: log, FORAGE_STAND_IN_STATE: dir });
  });
  beforeEach(() => writeFileSync(log, ""));
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await execa("nft", ["delete", "table", "inet", "forage_f250"], { reject: false });
  });
  const calls = (): string[] => readFileSync(log, "utf8").trim().split("\n");

  it("writes the sandbox's definition, creates and starts the container, sets the template's limits on its unit, and records its pid", async () => {
    const started = await backend.start(context, sandbox, context.settings.templates[0]!);
    const file = definitionPath(context.paths, "demo");
    expect(calls()).toEqual([
      `extra-container create --start ${file}`,
      "systemctl set-property --runtime container@f250.service TasksMax=64 MemoryMax=1G CPUQuota=150%",
      "systemctl show --property=MainPID --value container@f250.service",
    ]);
    expect(started).toMatchObject({ pid: 4242, cgroup: null });
    const definition = readFileSync(file, "utf8");
    expect(definition).toContain('import "/etc/forage/generated/containers/coder.nix"');
    expect(definition).toContain('hostAddress = "10.100.250.1";');
    expect(definition).toContain('"/etc/ssh/ssh_host_ed25519_key" = {');
    expect(definition).not.toContain('secretsDir = "');
    expect(await backend.isRunning(context, started)).toBe(true);
  });

  it("stops the container's unit, and destroys only what extra-container has installed", async () => {
    const running = { ...sandbox, pid: 4242 };
    await backend.stop(context, running, 10);
    expect(await backend.isRunning(context, running)).toBe(false);
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

  it("reports a failed create as a container error with what extra-container said", async () => {
    process.env.FORAGE_STAND_IN_FAIL = "create";
    try {
      await expect(backend.start(context, sandbox, context.settings.templates[0]!)).rejects.toMatchObject({
        kind: "container",
        message: expect.stringContaining("could not create container f250: extra-container create exited with 1:\nerror: building the container failed") as unknown,
      });
    } finally {
      delete process.env.FORAGE_STAND_IN_FAIL;
    }
  });
});
