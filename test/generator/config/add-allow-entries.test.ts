import { describe, expect, it } from "vitest";
import { addAllowToTypescript } from "../../../generator/config/edit/add-allow-typescript.js";
import { addAllowToYaml } from "../../../generator/config/edit/add-allow-yaml.js";
import { AllowEditRefused } from "../../../generator/config/edit/allow-edit.js";

const entries = ["*.cdn.example.org", "new.example.org"];
const edit = (template: string, inheritsAllow = false) => ({ template, entries, inheritsAllow });

const typescript = `import { defineConfig } from "forage";

// Templates for the team.
export default defineConfig({
  templates: {
    web: {
      extends: "basic",
      network: {
        mode: "restricted", // only what the build needs
        allow: [
          "api.example.org",
          "x.example.org", // the mirror
        ],
      },
    },
    plain: { agents: { claude: {} } },
    open: { network: "full" },
    computed: { network: sharedNetwork },
  },
});
`;

describe("adding allow entries to a TypeScript config (ts-morph)", () => {
  it("appends to a list written one entry per line, keeping its comments and trailing comma; nothing else changes", () => {
    const result = addAllowToTypescript(typescript, edit("web"));
    expect(result.notes).toEqual([]);
    expect(result.text).toBe(
      typescript.replace(
        `          "x.example.org", // the mirror\n`,
        `          "x.example.org", // the mirror\n          "*.cdn.example.org",\n          "new.example.org",\n`,
      ),
    );
  });

  it("creates network: { mode: restricted, allow } in a template without one, and says so", () => {
    const result = addAllowToTypescript(typescript, edit("plain"));
    expect(result.text).toBe(
      typescript.replace(
        "plain: { agents: { claude: {} } },",
        'plain: { agents: { claude: {} }, network: { mode: "restricted", allow: ["*.cdn.example.org", "new.example.org"] } },',
      ),
    );
    expect(result.notes).toEqual(['created network: { mode: "restricted", allow: [...] }']);
  });

  it("replaces a bare mode by a restricted network with the entries, and says the mode changed", () => {
    const result = addAllowToTypescript(typescript, edit("open"));
    expect(result.text).toBe(
      typescript.replace(
        'open: { network: "full" },',
        'open: { network: { mode: "restricted", allow: ["*.cdn.example.org", "new.example.org"] } },',
      ),
    );
    expect(result.notes).toEqual([
      'network mode "full" → "restricted" (an allow list only applies to restricted mode)',
    ]);
  });

  it("refuses a network it cannot find as a literal, and a missing template, naming why", () => {
    expect(() => addAllowToTypescript(typescript, edit("computed"))).toThrow(
      new AllowEditRefused(
        'template "computed": network is computed (Identifier), not written as a string or an object literal',
      ),
    );
    expect(() => addAllowToTypescript(typescript, edit("gone"))).toThrow(AllowEditRefused);
  });

  it("refuses to give a template that inherits an allow list a network of its own (it would replace that list)", () => {
    expect(() => addAllowToTypescript(typescript, edit("plain", true))).toThrow(
      /inherits an allow list through extends/,
    );
  });
});

const yaml = `# Team sandboxes
templates:
  basic:
    agents: { claude: {} }  # the default agent
  web:
    extends: basic
    network:
      mode: restricted # only what the build needs
      allow:
        - api.example.org # the API
        - "x.example.org"
    # keep this list short
  flow:
    network: { mode: full, sni: false }
  last:
    description: "no network yet"
`;

describe("adding allow entries to a YAML config (the yaml Document API, spliced)", () => {
  it("appends to a block list, keeping every comment and the rest of the file byte for byte", () => {
    const result = addAllowToYaml(yaml, edit("web"));
    expect(result.text).toBe(
      yaml.replace(
        `        - "x.example.org"\n`,
        `        - "x.example.org"\n        - "*.cdn.example.org"\n        - "new.example.org"\n`,
      ),
    );
  });

  it("adds allow to a flow-style network and switches its mode to restricted, saying so", () => {
    const result = addAllowToYaml(yaml, edit("flow"));
    expect(result.text).toBe(
      yaml.replace(
        "network: { mode: full, sni: false }",
        'network: { mode: "restricted", sni: false, allow: ["*.cdn.example.org", "new.example.org"] }',
      ),
    );
    expect(result.notes).toEqual([
      'network mode "full" → "restricted" (an allow list only applies to restricted mode)',
    ]);
  });

  it("creates a block network in a template without one, indented like its siblings", () => {
    const result = addAllowToYaml(yaml, edit("last"));
    expect(result.text).toBe(
      `${yaml}    network:\n      mode: restricted\n      allow:\n        - "*.cdn.example.org"\n        - "new.example.org"\n`,
    );
  });

  it("refuses a network given through an alias", () => {
    const aliased = `shared: &net { mode: restricted, allow: [a.example.org] }\ntemplates:\n  web:\n    network: *net\n`;
    expect(() => addAllowToYaml(aliased, edit("web"))).toThrow(AllowEditRefused);
  });
});

const json = `{
  "templates": {
    "web": {
      "network": {
        "mode": "restricted",
        "allow": [
          "api.example.org"
        ]
      }
    },
    "plain": { "description": "none yet" }
  }
}
`;

describe("adding allow entries to a JSON config", () => {
  it("appends to a list written one entry per line, in JSON, leaving the rest as it was", () => {
    expect(addAllowToYaml(json, edit("web"), true).text).toBe(
      json.replace(
        `          "api.example.org"\n`,
        `          "api.example.org",\n          "*.cdn.example.org",\n          "new.example.org"\n`,
      ),
    );
  });

  it("creates a network object with quoted keys", () => {
    expect(addAllowToYaml(json, edit("plain"), true).text).toBe(
      json.replace(
        '"plain": { "description": "none yet" }',
        '"plain": { "description": "none yet", "network": { "mode": "restricted", "allow": ["*.cdn.example.org", "new.example.org"] } }',
      ),
    );
  });
});
