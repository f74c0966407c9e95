import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { snippetProblems, wholeConfigOf } from "../support/config-check.js";
import { readmeSnippets } from "../support/readme-snippets.js";

/*
 * Every config the README shows loads with the real loader, whole or inside the whole config it
 * is part of (markers: test/support/readme-snippets.ts), so a reader who copies one gets a config
 * forage-ctl accepts and the docs cannot drift from the schema.
 */

const readme = readFileSync(fileURLToPath(new URL("../../README.md", import.meta.url)), "utf8");
const { snippets, problems } = readmeSnippets(readme);

describe("the README's config snippets", () => {
  it("have only markers the check knows, each right before a config block", () => {
    expect(problems).toEqual([]);
  });

  it("are found (control: the README shows configs, whole and in fragments)", () => {
    expect(snippets.filter(({ check }) => check.kind === "whole").length).toBeGreaterThan(0);
    expect(snippets.filter(({ check }) => check.kind === "fragment").length).toBeGreaterThan(0);
  });

  it.each(
    snippets.map(
      (snippet) => [`README.md:${snippet.line} (${snippet.language}, ${snippet.check.kind})`, snippet] as const,
    ),
  )("%s loads clean", async (_, snippet) => {
    expect(await snippetProblems(snippet)).toEqual([]);
  });
});

describe("the snippet check", () => {
  it("refuses a snippet the loader refuses (control: agents belong to a template, not the top level)", async () => {
    const planted = readmeSnippets(
      [
        "<!-- config: fragment -->",
        "```yaml",
        "agents:",
        "  claude: { package: claude-code, login: token }",
        "```",
      ].join("\n"),
    );
    expect(planted.problems).toEqual([]);
    const [snippet] = planted.snippets;
    expect(snippet === undefined ? [] : await snippetProblems(snippet)).toEqual([
      expect.stringMatching(/^forage\.json:\d+:\d+: agents: /),
    ]);
  });

  it("takes an unmarked config block for a whole config, so a fragment must say it is one", async () => {
    const [snippet] = readmeSnippets(["```yaml", "templates:", "  work: { network: none }", "```"].join("\n")).snippets;
    expect(snippet?.check).toEqual({ kind: "whole" });
    expect(snippet === undefined ? [] : await snippetProblems(snippet)).toEqual([expect.stringMatching(/: user: /)]);
  });

  it("puts a fragment at the path its marker names, beside the user it needs", () => {
    expect(wholeConfigOf({ pushGate: {} }, ["templates", "reviewer"])).toEqual({
      user: "alice",
      templates: { reviewer: { pushGate: {} } },
    });
    expect(wholeConfigOf({ approvals: { deadline: 60 } }, [])).toEqual({
      user: "alice",
      approvals: { deadline: 60 },
      templates: { demo: {} },
    });
  });

  it("says which markers it does not know, and which are not before a config block", () => {
    const text = [
      "<!-- config: fragmnet -->",
      "```yaml",
      "a: 1",
      "```",
      "<!-- config: none -->",
      "",
      "```sh",
      "ls",
      "```",
      "<!-- config: none -->",
      "prose",
      "```json",
      "{}",
      "```",
    ];
    expect(readmeSnippets(text.join("\n")).problems).toEqual([
      '1: unknown marker "config: fragmnet": use "config: fragment", "config: fragment in a.b" or "config: none"',
      "5: a config marker before a `sh` block, which is never taken for a config",
      "10: a config marker must come right before a fence",
    ]);
  });
});
