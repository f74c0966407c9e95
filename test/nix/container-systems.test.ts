import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { goldenCases, loadCaseModel } from "../golden/cases.js";
import { writeCaseOutput } from "../support/generated-case.js";
import { nixEvalJson, repoRoot } from "../support/nix.js";
import { flakePrelude, routeExpression, routes, type RouteCase } from "../support/nixos-routes.js";
import { toolsAvailable } from "../support/tools.js";

/*
 * Every example's and golden case's container systems, on every route to NixOS (the host module's
 * prebuilt /etc/forage/systems/<t>, the flake's lib.templateSystem, containers.<name>.config and
 * forage-ctl's extra-container definition), evaluated by the real Nix against the stand-in NixOS
 * (test/nix/stand-in: module system, users-groups assertions, reserved ids, nixpkgs config and
 * unfree refusal, nixos-containers option types). Any failed assertion, type error or refused
 * package fails the case with NixOS's own message.
 */
const tools = toolsAvailable("nix-instantiate");
const cases = [...goldenCases, { name: "nixos-vm-test", input: "test/nixos/forage.yaml" }];

describe.skipIf(!tools.run)("container systems on every route to NixOS", () => {
  let root = "";
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "forage-routes-"));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("covers every bundled example", () => {
    const examples = readdirSync(join(repoRoot, "examples"), { withFileTypes: true }).filter((entry) =>
      entry.isDirectory(),
    );
    const covered = cases.map((c) => c.input.split("/")[1]);
    for (const example of examples)
      expect(covered, `examples/${example.name} is not a golden case`).toContain(example.name);
  });

  describe.each(cases)("$name", ({ name, input }) => {
    let routeCase: RouteCase;
    beforeAll(async () => {
      const model = await loadCaseModel(input);
      routeCase = {
        generated: await writeCaseOutput(join(root, name, "generated"), input),
        templates: model.templates.map((template) => template.name),
        user: model.host.user,
        scratch: join(root, name, "scratch"),
      };
    });

    it.each(routes)("builds every template's system through the %s route", (route) => {
      const systems = nixEvalJson(`let ${flakePrelude} in ${routeExpression(route, routeCase)}`) as Record<
        string,
        string
      >;
      for (const template of routeCase.templates)
        expect(systems[template], template).toMatch(/^\/nix\/store\/[a-z0-9]{32}-.*\.drv$/);
    });
  });
});
