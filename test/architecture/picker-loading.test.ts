import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../runtime/core/package-root.js";
import { importEdges, loadedBy, packagesImported } from "./import-graph.js";

/*
 * The terminal-UI library (ink, react: ~0.8 s to import) is pick's alone. `forage-ctl --help`
 * registers every command module and `exec` loads inside.ts, so none of them may load it as it
 * loads; pick's command module imports the picker only when the command runs.
 */
const root = packageRoot();
const edges = importEdges(root);
const terminalUi = ["ink", "react"];
const uiLoadedBy = (file: string): string[] =>
  [...packagesImported(root, loadedBy(file, edges))].filter((p) => terminalUi.includes(p));

describe("the picker's terminal-UI library", () => {
  it.each([
    "cli/main.ts",
    "cli/command-registry.ts",
    "cli/operations.ts",
    ...readdirSync(join(root, "cli/commands")).map((f) => `cli/commands/${f}`),
  ])("is not loaded with %s", (file) => {
    expect(uiLoadedBy(file)).toEqual([]);
  });

  it("is loaded by the picker itself (control: the check above can see it)", () => {
    expect(uiLoadedBy("cli/pick/run-pick.ts").sort()).toEqual(["ink", "react"]);
  });
});
