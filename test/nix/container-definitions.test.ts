import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { extraContainerDefinition } from "../../runtime/backends/extra-container/definition.js";
import { casePackagePaths, standInLib, standInPkgs, writeCaseOutput } from "../support/generated-case.js";
import { nixEvalJson, nixString, repoRoot, standInDir } from "../support/nix.js";
import { packagesByName } from "../support/nixos-routes.js";
import { toolsAvailable } from "../support/tools.js";

/*
 * containers/<template>.nix evaluated by the real Nix: the extra-container definition for one
 * sandbox, and the container module's settings checked against the template option types.
 */
const tools = toolsAvailable("nix-instantiate");
const input = "examples/restricted-claude/forage.config.ts";

describe.skipIf(!tools.run)("generated container definitions", () => {
  let root = "";
  let prelude = "";
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "forage-containers-"));
    await writeCaseOutput(root, input);
    const packages = (await casePackagePaths(input)).map((path) => ({ path }));
    prelude = `
      let
        lib = ${standInLib};
        pkgs = ${standInPkgs(packages)};
        # Stands in for the flake: only the container module's path is needed here.
        forage = { nixosModules.container = ${nixString(join(repoRoot, "modules/container"))}; };
        definition = import ${nixString(join(root, "containers/claude.nix"))} { inherit forage; uid = 1234; gid = 567; };
      in`;
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  /** What every sandbox container in slot 7 is, whatever its mounts. */
  const slot7 = {
    ephemeral: true,
    privateNetwork: true,
    autoStart: false,
    hostAddress: "10.100.7.1",
    localAddress: "10.100.7.2",
  };
  const slot7v6 = { hostAddress6: "fd66:a64:7::1", localAddress6: "fd66:a64:7::2" };

  it("defines one ephemeral, privately networked container with the addresses and mounts it is given", () => {
    const container = nixEvalJson(`${prelude}
      let c = (definition.extraContainer {
        name = "f7"; hostAddress = "10.100.7.1"; localAddress = "10.100.7.2";
        workspace = "/var/lib/forage/workspaces/demo";
        secretsDir = "/run/forage-secrets/demo";
        extraBindMounts."/home/agent/.claude" = { hostPath = "/home/alice/.claude"; isReadOnly = true; };
      }).containers;
      in builtins.mapAttrs (name: v: removeAttrs v [ "config" ] // { configIsModule = builtins.isFunction v.config; }) c`);
    expect(container).toEqual({
      f7: {
        ...slot7,
        hostAddress6: null,
        localAddress6: null,
        bindMounts: {
          "/workspace": { hostPath: "/var/lib/forage/workspaces/demo", isReadOnly: false },
          "/run/secrets": { hostPath: "/run/forage-secrets/demo", isReadOnly: true },
          "/home/agent/.claude": { hostPath: "/home/alice/.claude", isReadOnly: true },
        },
        configIsModule: true,
      },
    });
  });

  it("is what forage-ctl's per-sandbox extra-container file evaluates to, with the sandbox's uid, addresses and mounts", () => {
    const file = join(root, "f7.nix");
    writeFileSync(
      file,
      extraContainerDefinition({
        sandbox: "demo",
        template: "claude",
        generatedDir: root,
        modulesDir: join(repoRoot, "modules"),
        containerName: "f7",
        hostAddress: "10.100.7.1",
        localAddress: "10.100.7.2",
        ...slot7v6,
        uid: 1234,
        gid: 567,
        workspace: "/home/alice/src/demo",
        secretsDir: null,
        extraBindMounts: { "/home/agent/.tmux.conf": { hostPath: "/home/alice/.tmux.conf", readOnly: true } },
      }),
    );
    const evaluated = nixEvalJson(`${prelude}
      let c = (import ${nixString(file)}).containers.f7; sandbox = (c.config { inherit pkgs; }).forage.sandbox;
      in removeAttrs c [ "config" ] // { sandbox = { inherit (sandbox) uid gid templateName; }; }`);
    expect(evaluated).toEqual({
      ...slot7,
      ...slot7v6,
      bindMounts: {
        "/workspace": { hostPath: "/home/alice/src/demo", isReadOnly: false },
        "/home/agent/.tmux.conf": { hostPath: "/home/alice/.tmux.conf", isReadOnly: true },
      },
      sandbox: { uid: 1234, gid: 567, templateName: "claude" },
    });
  });

  it("mounts no secrets directory when the sandbox has none", () => {
    const mounts = nixEvalJson(`${prelude}
      (definition.extraContainer { name = "f1"; hostAddress = "10.100.1.1"; localAddress = "10.100.1.2"; workspace = "/w"; }).containers.f1.bindMounts`);
    expect(mounts).toEqual({ "/workspace": { hostPath: "/w", isReadOnly: false } });
  });

  it("configures the container module with the template, the agent user's uid/gid and no secret values", () => {
    const sandbox = nixEvalJson(`${prelude} (definition.module { inherit pkgs; }).forage.sandbox`) as Record<
      string,
      unknown
    >;
    expect(sandbox).toMatchObject({
      templateName: "claude",
      user: "agent",
      uid: 1234,
      gid: 567,
      workspacePath: "/workspace",
      secretsPath: "/run/secrets",
    });
    expect(JSON.stringify(sandbox)).toContain('"secretName":"anthropic-api-key"');
  });

  it("imports the container module, whose option types accept the template's values (the stand-in module system checks each)", () => {
    const result = nixEvalJson(`${prelude} {
      imports = map toString (definition.module { inherit pkgs; }).imports;
      sandbox = let
        config = (import ${nixString(join(standInDir, "nixos/lib/eval-config.nix"))} { system = null; modules = [ definition.module { nixpkgs.hostPlatform = "x86_64-linux"; } ]; }).config;
      in (${packagesByName}) config.forage.sandbox;
    }`) as { imports: string[]; sandbox: { template: Record<string, unknown>; uid: number } };
    expect(result.imports).toEqual([join(repoRoot, "modules/container")]);
    expect(result.sandbox.uid).toBe(1234);
    expect(result.sandbox.template).toMatchObject({
      agents: {
        claude: { package: "<package claude-code>", secretName: "anthropic-api-key", authEnvVar: "ANTHROPIC_API_KEY" },
      },
      extraPackages: ["<package nodejs_22>", "<package black>"],
      network: { mode: "restricted" },
    });
  });

  it("says the system runs under systemd-nspawn on its own (nspawn-nix), so NixOS leaves nspawn's capped /run and /dev/shm alone", () => {
    // Without it NixOS's stage 2 remounts /run at 25% and /dev/shm at 50% of the host's RAM
    // (nixos/modules/tasks/filesystems.nix), far above a template's memoryMax.
    const boot = nixEvalJson(`${prelude} let
        config = (import ${nixString(join(standInDir, "nixos/lib/eval-config.nix"))} { system = null; modules = [ definition.module { nixpkgs.hostPlatform = "x86_64-linux"; } ]; }).config;
      in { inherit (config.boot) isContainer isNspawnContainer; }`);
    expect(boot).toEqual({ isContainer: true, isNspawnContainer: true });
  });
});
