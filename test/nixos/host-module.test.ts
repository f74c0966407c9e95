import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { casePackagePaths, standInLib, standInPkgs, writeCaseOutput } from "../support/generated-case.js";
import { nixEvalJson, nixString, repoRoot } from "../support/nix.js";
import { isRoot, toolsAvailable } from "../support/tools.js";

/*
 * The host module's behaviour without a VM: the same expectations the NixOS VM test checks
 * (expectations.json), here against the module's pure helpers evaluated by the real Nix with the
 * stand-in lib, and tmpfiles rules applied by the real systemd-tmpfiles under a temporary root.
 */
const tools = toolsAvailable("nix-instantiate", "systemd-tmpfiles");
const input = "test/nixos/forage.yaml";
const expectations = JSON.parse(readFileSync(join(repoRoot, "test/nixos/expectations.json"), "utf8")) as {
  runtimeSettingsVersion: number;
  templates: string[];
  directories: { path: string; mode: string }[];
};

interface Assertion {
  assertion: boolean;
  message: string;
}

describe.skipIf(!tools.run)("the host module (services.forage) for the VM test's config", () => {
  let root = "";
  let prelude = "";
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "forage-host-"));
    await writeCaseOutput(join(root, "out"), input);
    const packages = (await casePackagePaths(input)).map((path) => ({ path }));
    prelude = `
      let
        lib = ${standInLib};
        pkgs = ${standInPkgs(packages)};
        cfg = (import ${nixString(join(root, "out/default.nix"))} { config = { }; inherit lib pkgs; }).services.forage;
        forageLib = import ${nixString(join(repoRoot, "modules/lib"))} { inherit lib; };
        failing = cfg: builtins.filter (a: !a.assertion) (forageLib.hostAssertions { inherit cfg; userNames = [ "alice" ]; });
      in`;
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("publishes runtime settings with the expected version and templates", () => {
    const settings = JSON.parse(readFileSync(join(root, "out/forage.json"), "utf8")) as { version: number; templates: object };
    expect(settings.version).toBe(expectations.runtimeSettingsVersion);
    expect(Object.keys(settings.templates).sort()).toEqual(expectations.templates);
  });

  it.skipIf(!isRoot())("creates the state and secrets directories with the expected modes (real systemd-tmpfiles)", () => {
    const rules = nixEvalJson(`${prelude} forageLib.hostTmpfiles cfg`) as string[];
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
  });

  it("passes every assertion for a correct config", () => {
    expect(nixEvalJson(`${prelude} failing cfg`)).toEqual([]);
  });

  it("fails with a message naming the option and the fix when an agent's secret is not defined", () => {
    const failed = nixEvalJson(`${prelude} failing (cfg // { secrets = { }; })`) as Assertion[];
    expect(failed.map((a) => a.message)).toEqual([
      'services.forage.templates.tiny.agents.greeter.secretName: secret "greeter-key" is not defined; add it to services.forage.secrets (name = host file path).',
    ]);
  });

  it("fails when the host user is unset or not declared", () => {
    const unset = nixEvalJson(`${prelude} failing (cfg // { user = ""; })`) as Assertion[];
    expect(unset.map((a) => a.message)).toEqual([expect.stringMatching(/^services\.forage\.user must be set .* e\.g\. services\.forage\.user = "alice";$/)]);
    const unknown = nixEvalJson(`${prelude} failing (cfg // { user = "mallory"; })`) as Assertion[];
    expect(unknown.map((a) => a.message)).toEqual([expect.stringMatching(/^services\.forage\.user: user "mallory" is not declared in users\.users/)]);
  });

  it("fails when a template uses full network but no external interface is set", () => {
    const full = `cfg // { templates.tiny = cfg.templates.tiny // { network = { mode = "full"; }; }; }`;
    const failed = nixEvalJson(`${prelude} failing (${full})`) as Assertion[];
    expect(failed.map((a) => a.message)).toEqual([expect.stringMatching(/^services\.forage\.templates\.tiny\.network is "full" but services\.forage\.externalInterface is not set; set it to/)]);
  });

  it("fails when the generated directory is not imported", () => {
    const failed = nixEvalJson(`${prelude} failing (cfg // { generated = null; })`) as Assertion[];
    expect(failed.map((a) => a.message)).toEqual([expect.stringMatching(/^services\.forage\.generated is not set: run `forage-ctl generate`/)]);
  });
});
