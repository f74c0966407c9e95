import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeCaseOutput } from "../support/generated-case.js";
import { nixEvalJson, nixString, repoRoot } from "../support/nix.js";
import { flakePrelude } from "../support/nixos-routes.js";
import { isRoot, toolsAvailable } from "../support/tools.js";

/*
 * The host module's behaviour without a VM: the same expectations the NixOS VM test checks
 * (expectations.json), here with the real Nix evaluating the flake's module on the stand-in NixOS
 * (its module system, accounts and assertions), and its tmpfiles rules applied by the real
 * systemd-tmpfiles under a temporary root.
 */
const tools = toolsAvailable("nix-instantiate", "systemd-tmpfiles");
const input = "test/nixos/forage.yaml";
const expectations = JSON.parse(readFileSync(join(repoRoot, "test/nixos/expectations.json"), "utf8")) as {
  runtimeSettingsVersion: number;
  templates: string[];
  directories: { path: string; mode: string }[];
};

describe.skipIf(!tools.run)("the host module (services.forage) for the VM test's config", () => {
  let root = "";
  /** The host's evaluated config, with `extra` (a NixOS module's source) added. */
  const host = (extra = "{ }"): string => `(let ${flakePrelude} in (nixpkgs.lib.nixosSystem { modules = [
    self.nixosModules.default (/. + ${nixString(join(root, "out"))})
    ({ lib, ... }: { nixpkgs.hostPlatform = system; system.stateVersion = "25.05"; users.users.alice = { isNormalUser = true; uid = lib.mkDefault 1000; }; })
    (${extra})
  ]; }).config)`;
  /**
   * The messages of the host's failed assertions about services.forage. The tests reach each
   * assertion by overriding a generated setting in NixOS, which is itself refused (forage-ctl would
   * not read it; test/nix/host-settings.test.ts): that refusal is left out here.
   */
  const failing = (extra?: string): string[] =>
    (
      nixEvalJson(
        `builtins.filter (m: builtins.substring 0 15 m == "services.forage") (map (a: a.message) (builtins.filter (a: !a.assertion) ${host(extra)}.assertions))`,
      ) as string[]
    ).filter(
      (message) =>
        !/^services\.forage\.\w+ is set in .*, but forage-ctl reads the settings the generated default\.nix sets/.test(
          message,
        ),
    );

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "forage-host-"));
    await writeCaseOutput(join(root, "out"), input);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("publishes runtime settings with the expected version and templates", () => {
    const settings = JSON.parse(readFileSync(join(root, "out/forage.json"), "utf8")) as {
      version: number;
      templates: object;
    };
    expect(settings.version).toBe(expectations.runtimeSettingsVersion);
    expect(Object.keys(settings.templates).sort()).toEqual(expectations.templates);
  });

  it.skipIf(!isRoot())(
    "creates the state and secrets directories with the expected modes (real systemd-tmpfiles)",
    () => {
      const rules = nixEvalJson(`${host()}.systemd.tmpfiles.rules`) as string[];
      const config = join(root, "forage.conf");
      writeFileSync(config, `${rules.join("\n")}\n`);
      const fsRoot = join(root, "fs");
      mkdirSync(join(fsRoot, "run"), { recursive: true });
      execFileSync("systemd-tmpfiles", ["--create", `--root=${fsRoot}`, config], { stdio: "pipe" });
      for (const directory of expectations.directories) {
        const stat = statSync(join(fsRoot, directory.path));
        expect(stat.isDirectory(), directory.path).toBe(true);
        expect((stat.mode & 0o7777).toString(8), directory.path).toBe(directory.mode);
      }
    },
  );

  it("passes every assertion for a correct config, NixOS's own included", () => {
    expect(nixEvalJson(`map (a: a.message) (builtins.filter (a: !a.assertion) ${host()}.assertions)`)).toEqual([]);
  });

  it("fails with a message naming the option and the fix when an agent's secret is not defined", () => {
    expect(failing(`{ lib, ... }: { services.forage.secrets = lib.mkForce { }; }`)).toEqual([
      'services.forage.templates.tiny.agents.greeter.secretName: secret "greeter-key" is not defined; add it to services.forage.secrets (name = host file path).',
    ]);
  });

  it("fails when the host user is unset or not declared", () => {
    const ids = "services.forage.uid = 1000; services.forage.gid = 100;";
    expect(failing(`{ lib, ... }: { services.forage.user = lib.mkForce ""; ${ids} }`)).toEqual([
      expect.stringMatching(/^services\.forage\.user must be set .* e\.g\. services\.forage\.user = "alice";$/),
    ]);
    expect(failing(`{ lib, ... }: { services.forage.user = lib.mkForce "mallory"; ${ids} }`)).toEqual([
      expect.stringMatching(/^services\.forage\.user: user "mallory" is not declared in users\.users/),
    ]);
  });

  it("fails when a template uses full network but no external interface is set", () => {
    expect(
      failing(
        `{ lib, ... }: { services.forage.templates.tiny.network.mode = lib.mkForce "full"; services.forage.templates.tiny.network.allow = lib.mkForce null; }`,
      ),
    ).toEqual([
      expect.stringMatching(
        /^services\.forage\.templates\.tiny\.network is "full" but services\.forage\.externalInterface is not set; set it to/,
      ),
    ]);
  });

  it("fails when the generated directory is not imported", () => {
    expect(failing(`{ lib, ... }: { services.forage.generated = lib.mkForce null; }`)).toEqual([
      expect.stringMatching(/^services\.forage\.generated is not set: run `forage-ctl generate`/),
    ]);
  });

  it("gives the agent the host user's uid and its primary group's gid (users, 100, on NixOS)", () => {
    expect(nixEvalJson(`{ inherit (${host()}.services.forage) uid gid; }`)).toEqual({ uid: 1000, gid: 100 });
  });

  it("fails, saying what to set, when the host user has no fixed uid or its group no fixed gid", () => {
    expect(failing(`{ lib, ... }: { users.users.alice.uid = lib.mkForce null; }`)).toEqual([
      expect.stringMatching(
        /^services\.forage\.uid: users\.users\.alice\.uid is not set, .*; set users\.users\.alice\.uid/,
      ),
    ]);
    expect(failing(`{ users.users.alice.group = "staff"; users.groups.staff = { }; }`)).toEqual([
      expect.stringMatching(
        /^services\.forage\.gid: the primary group of alice \(staff\) has no fixed gid, .*; set users\.groups\.staff\.gid/,
      ),
    ]);
  });

  it('accepts the reference\'s spelling network = "restricted" with allowedHosts, as network = { mode; allow; }, with a warning naming the new spelling', () => {
    const reference = `{ services.forage.templates.extra = { network = "restricted"; allowedHosts = [ "api.example.org" ]; }; services.forage.templates.alone.allowedHosts = [ "b.example.org" ]; }`;
    const result = nixEvalJson(
      `let c = ${host(reference)}; in { extra = c.services.forage.templates.extra.network; alone = c.services.forage.templates.alone.network; warnings = c.warnings; }`,
    );
    expect(result).toEqual({
      extra: { mode: "restricted", allow: ["api.example.org"], sni: null, ask: null },
      alone: { mode: "restricted", allow: ["b.example.org"], sni: null, ask: null },
      warnings: [
        'services.forage.templates.alone.allowedHosts is the reference\'s spelling; write network = { mode = "restricted"; allow = [ … ]; } instead.',
        'services.forage.templates.extra.allowedHosts is the reference\'s spelling; write network = { mode = "restricted"; allow = [ … ]; } instead.',
      ],
    });
  });

  it("refuses allowedHosts beside a network mode other than restricted", () => {
    expect(
      failing(
        `{ lib, ... }: { services.forage.templates.extra = { network = "full"; allowedHosts = [ "api.example.org" ]; }; services.forage.externalInterface = lib.mkForce "eth0"; }`,
      ),
    ).toEqual([
      expect.stringMatching(
        /^services\.forage\.templates\.extra\.allowedHosts only applies to network "restricted", and this template's network is "full"; write network = \{ mode = "restricted"; allow = \[ … \]; \} or remove allowedHosts\.$/,
      ),
    ]);
  });
});
