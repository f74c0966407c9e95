import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCaseModel } from "../golden/cases.js";
import { writeCaseOutput } from "../support/generated-case.js";
import { nixEvalJson, nixString } from "../support/nix.js";
import { flakePrelude } from "../support/nixos-routes.js";
import { toolsAvailable } from "../support/tools.js";

/*
 * forage-ctl reads the settings the generated default.nix sets (through forage.json), never the
 * NixOS evaluation: a services.forage setting given anywhere else would be accepted by NixOS and
 * ignored by every sandbox. The host module refuses it with an assertion that names the file.
 * Real Nix against the stand-in NixOS, whose option `files` are those of the winning definitions
 * (lib/modules.nix).
 */
const tools = toolsAvailable("nix-instantiate");
const input = "examples/quickstart/forage.yaml";

describe.skipIf(!tools.run)("services.forage settings set outside the generated default.nix", () => {
  let root = "";
  let generated = "";
  let user = "";
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "forage-host-settings-"));
    generated = await writeCaseOutput(join(root, "forage-generated"), input);
    user = (await loadCaseModel(input)).host.user;
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  /** Builds a host importing the generated directory (as the README says) and `extra`, a module written to its own file. */
  function buildHost(extra: string): { built: true } | { refused: string } {
    const file = join(root, "configuration.nix");
    writeFileSync(file, `{ lib, ... }: ${extra}\n`);
    try {
      nixEvalJson(`let ${flakePrelude} in (nixpkgs.lib.nixosSystem { modules = [
        self.nixosModules.default (/. + ${nixString(generated)}) (/. + ${nixString(file)})
        { nixpkgs.hostPlatform = system; system.stateVersion = "25.05"; users.users.${nixString(user)} = { isNormalUser = true; uid = 1000; }; }
      ]; }).config.system.build.toplevel.drvPath`);
      return { built: true };
    } catch (error) {
      return { refused: (error as Error).message };
    }
  }

  const refusal = (name: string): string =>
    `services.forage.${name} is set in ${join(root, "configuration.nix")}, but forage-ctl reads the settings the generated default.nix sets (from your forage config, through forage.json), so that value would be ignored: set ${name} in forage.config.ts (or forage.yaml) and run \`forage-ctl generate\`.`;

  it("builds a host that sets only what the module leaves to NixOS (control)", () => {
    expect(buildHost(`{ services.forage.uid = 1000; }`)).toEqual({ built: true });
  });

  it("refuses a list setting added beside the generated one (NixOS would concatenate it)", () => {
    const result = buildHost(
      `{ services.forage.authorizedKeys = [ "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBY2y5Z6n1qOvhNKO9GmD9F5vzV3ZKkPNMwA2hk9nQyH bob" ]; }`,
    );
    expect(result).toEqual({ refused: expect.stringContaining("Failed assertions:") as unknown });
    expect((result as { refused: string }).refused).toContain(refusal("authorizedKeys"));
  });

  it("refuses a setting forced over the generated one, and a template added in NixOS", () => {
    const forced = buildHost(`{ services.forage.stateDir = lib.mkForce "/srv/forage"; }`);
    expect((forced as { refused: string }).refused).toContain(refusal("stateDir"));
    const added = buildHost(`{ services.forage.templates.extra.agents = { }; }`);
    expect((added as { refused: string }).refused).toContain(refusal("templates"));
  });

  it("lets a mkDefault under the generated value be (it loses, so the evaluation agrees with forage.json)", () => {
    expect(buildHost(`{ services.forage.stateDir = lib.mkDefault "/srv/forage"; }`)).toEqual({ built: true });
  });
});
