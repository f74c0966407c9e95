import { describe, expect, it } from "vitest";
import type { TemplateModel } from "../../../generator/model/model.js";
import type { ContextView } from "../../../runtime/context/context-view.js";
import { renderContext } from "../../../runtime/context/render-context.js";

/** The context files rendered from templates/context/ for a sandbox (real templates, real Handlebars). */
const view = (overrides: Partial<ContextView>): ContextView => ({
  sandbox: "fix-42",
  template: { name: "claude", description: "" },
  workspace: { path: "/workspace", mode: "direct", jj: false, git: false, direct: true, vcsName: null },
  mounts: [],
  readOnlyWorkspace: false,
  network: {
    mode: "none",
    none: true,
    restricted: false,
    full: false,
    allow: [],
    deny: [],
    sni: false,
    denialsFile: "/run/forage/network/denials.jsonl",
  },
  identity: { gitUser: null, gitEmail: null, sshKey: false },
  agents: [],
  proxied: false,
  mcp: [],
  hasMcp: false,
  user: "agent",
  hasFlake: false,
  fragments: [],
  ...overrides,
});
const template = (skills: TemplateModel["context"]["skills"] = []): TemplateModel =>
  ({ context: { enable: true, fragments: [], skills } }) as unknown as TemplateModel;

describe("a sandbox's rendered context", () => {
  it("lists its MCP servers with the tools called at once, asked about and refused, and says what a refusal looks like", async () => {
    const files = await renderContext(
      view({
        hasMcp: true,
        mcp: [
          {
            name: "tracker",
            url: "http://10.100.3.1:8080/_mcp/tracker",
            allowed: "`get_*`",
            asked: "`create_*`, and every tool not named here",
            refused: "`delete_*`",
          },
        ],
      }),
      template(),
    );
    expect(files["system-prompt.md"]).toContain(
      "- `tracker` (http://10.100.3.1:8080/_mcp/tracker): called at once: `get_*`; each call waits for a human's approval: `create_*`, and every tool not named here; refused, and not listed: `delete_*`.\n",
    );
    expect(files["system-prompt.md"]).toContain("comes back as a tool error saying why");
    expect((await renderContext(view({}), template()))["system-prompt.md"]).not.toContain("MCP");
  });

  it("has only the skills that fit: commits always, the VCS's, nix with a flake", async () => {
    const direct = await renderContext(view({}), template());
    expect(Object.keys(direct).sort()).toEqual(["AGENTS.md", "skills/forage-commits/SKILL.md", "system-prompt.md"]);
    const jj = await renderContext(
      view({
        workspace: { path: "/workspace", mode: "jj", jj: true, git: false, direct: false, vcsName: "ws" },
        hasFlake: true,
      }),
      template(),
    );
    expect(Object.keys(jj).filter((path) => path.startsWith("skills/"))).toEqual([
      "skills/forage-jj/SKILL.md",
      "skills/forage-commits/SKILL.md",
      "skills/forage-nix/SKILL.md",
    ]);
  });

  it("writes a template's own skill with its description quoted, so YAML reads any text as a string", async () => {
    const files = await renderContext(
      view({}),
      template([{ name: "deploy", description: 'Use when: "shipping" # not a comment', body: "Ship it.\n\n\n" }]),
    );
    expect(files["skills/deploy/SKILL.md"]).toBe(
      '---\nname: deploy\ndescription: "Use when: \\"shipping\\" # not a comment"\n---\n\nShip it.\n',
    );
    expect(files["AGENTS.md"]).toContain('## Skill: deploy\n\nUse when: "shipping" # not a comment\n\nShip it.');
  });

  it("says what none, restricted and full mean, and how to read denials", async () => {
    const restricted = await renderContext(
      view({
        network: {
          mode: "restricted",
          none: false,
          restricted: true,
          full: false,
          allow: ["a.example"],
          deny: [],
          sni: false,
          denialsFile: "/d.jsonl",
        },
      }),
      template(),
    );
    expect(restricted["system-prompt.md"]).toContain(
      "Only these names resolve and are reachable:\n\n- `a.example`\n\nAny other name fails to resolve",
    );
    expect(restricted["system-prompt.md"]).toContain("look at `/d.jsonl`");
    expect((await renderContext(view({}), template()))["system-prompt.md"]).toContain("Nothing leaves this sandbox");
  });

  it("puts a fragment in as written, without escaping", async () => {
    const files = await renderContext(view({ fragments: ["Use <b>make</b> & `npm test`."] }), template());
    expect(files["system-prompt.md"]?.trimEnd().endsWith("Use <b>make</b> & `npm test`.")).toBe(true);
  });
});
