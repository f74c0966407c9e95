import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentPresets } from "../../cli/agent-presets.js";
import { configProblems } from "../support/config-check.js";
import { offeredOptions, switchOn } from "../support/scaffold-options.js";
import { makeTempDir, removeTempDir, runCli } from "./run-cli.js";

/*
 * The config `forage-ctl init` writes is documentation as much as the README: it loads clean for
 * every agent it knows, and so does each option it offers commented out, switched on (the
 * convention: test/support/scaffold-options.ts).
 */

const scaffolds = new Map<string, string>();
let dir: string;
beforeAll(async () => {
  dir = await makeTempDir();
  for (const agent of Object.keys(agentPresets)) {
    const out = `${agent}.config.ts`;
    const result = await runCli(["init", "--user", "alice", "--agent", agent, "--out", out], { cwd: dir });
    if (result.exitCode !== 0) throw new Error(`init --agent ${agent}: ${result.stderr}`);
    scaffolds.set(agent, await readFile(join(dir, out), "utf8"));
  }
});
afterAll(async () => {
  await removeTempDir(dir);
});

describe.each(Object.keys(agentPresets))("init --agent %s", (agent) => {
  it("writes a config that loads clean", async () => {
    expect(await configProblems("forage.config.ts", scaffolds.get(agent) ?? "")).toEqual([]);
  });

  it("offers options commented out that load clean when switched on", async () => {
    const text = scaffolds.get(agent) ?? "";
    const options = offeredOptions(text);
    // An agent Forage keeps a subscription login for is offered it; the others have no alternative to offer.
    expect(options.map((option) => option.name)).toEqual(text.includes("Or use your subscription") ? ["login"] : []);
    for (const option of options) {
      // As the comment says: an option replacing secretName takes the secret it named along.
      const secret = option.replaces.includes("secretName") ? /secretName: "([^"]+)"/.exec(text)?.[1] : undefined;
      const switched = switchOn(text, option)
        .split("\n")
        .filter((line) => secret === undefined || !line.trimStart().startsWith(`"${secret}": `))
        .join("\n");
      expect(await configProblems("forage.config.ts", switched), `with ${option.name} switched on`).toEqual([]);
    }
  });
});

describe("an offered option, switched on", () => {
  const scaffold = [
    "  agents: {",
    "    a: {",
    '      secretName: "k",',
    '      authEnvVar: "K",',
    '      // login: "token", // instead of secretName and authEnvVar',
    "    },",
    '    b: { secretName: "k" },',
    "  },",
  ].join("\n");

  it("is found with the options it replaces", () => {
    expect(offeredOptions(scaffold)).toEqual([{ index: 4, name: "login", replaces: ["secretName", "authEnvVar"] }]);
  });

  it("is uncommented, and the options it replaces go from its own object only", () => {
    const [option] = offeredOptions(scaffold);
    expect(option === undefined ? "" : switchOn(scaffold, option)).toBe(
      ["  agents: {", "    a: {", '      login: "token",', "    },", '    b: { secretName: "k" },', "  },"].join("\n"),
    );
  });
});
