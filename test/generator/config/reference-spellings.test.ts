import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { formatDiagnostic } from "../../../generator/config/diagnostic.js";
import { loadConfig, type LoadedConfig } from "../../../generator/config/load-config.js";
import type { ConfigInput } from "../../../generator/config/schema/config.js";
import type { TemplateInput } from "../../../generator/config/schema/template.js";
import { generateFiles } from "../../../generator/generate.js";
import { resolveModel } from "../../../generator/model/resolve.js";
import { parseConfig } from "./parse-config.js";
import { configErrorOf, tempConfigDir, where, type TempConfigDir } from "./temp-config.js";

/*
 * Configs written for the reference system (Firefly Forage) use its spellings: a template's
 * `allowedHosts` beside `network = "restricted"`, and the host's `proxyUrl`. Forage accepts them
 * as aliases of `network: { mode: "restricted", allow }` and `proxy.url`: the same model, the same
 * generated files, and a note naming the new spelling.
 */

let temp: TempConfigDir;
beforeEach(async () => {
  temp = await tempConfigDir();
});
afterEach(async () => {
  await temp.cleanup();
});

/** One config in both spellings, as YAML; each template exercises one form of the alias. */
const referenceYaml = [
  "user: alice", //                                              1
  "proxyUrl: http://proxy.example.org:8080", //                  2
  "templates:", //                                               3
  "  pinned:", //                                                4
  "    network: restricted", //                                  5
  "    allowedHosts:", //                                        6
  "      - api.example.org", //                                  7
  '      - "*.registry.example.org:443"', //                     8
  "  implied:", //                                               9
  "    allowedHosts: [api.example.org]", //                      10
  "  named:", //                                                 11
  "    network: { mode: restricted, sni: true }", //             12
  "    allowedHosts: [api.example.org]", //                      13
  "",
].join("\n");

const canonicalYaml = [
  "user: alice",
  "proxy: { url: http://proxy.example.org:8080 }",
  "templates:",
  "  pinned:",
  '    network: { mode: restricted, allow: [api.example.org, "*.registry.example.org:443"] }',
  "  implied:",
  "    network: { mode: restricted, allow: [api.example.org] }",
  "  named:",
  "    network: { mode: restricted, sni: true, allow: [api.example.org] }",
  "",
].join("\n");

/** The same two configs as data, for JSON and TypeScript files. */
const referenceData = {
  user: "alice",
  proxyUrl: "http://proxy.example.org:8080",
  templates: {
    pinned: { network: "restricted", allowedHosts: ["api.example.org", "*.registry.example.org:443"] },
    implied: { allowedHosts: ["api.example.org"] },
    named: { network: { mode: "restricted", sni: true }, allowedHosts: ["api.example.org"] },
  },
};
const canonicalData = {
  user: "alice",
  proxy: { url: "http://proxy.example.org:8080" },
  templates: {
    pinned: { network: { mode: "restricted", allow: ["api.example.org", "*.registry.example.org:443"] } },
    implied: { network: { mode: "restricted", allow: ["api.example.org"] } },
    named: { network: { mode: "restricted", sni: true, allow: ["api.example.org"] } },
  },
};

const typescript = (data: unknown): string =>
  `import { defineConfig } from "forage";\n\nexport default defineConfig(${JSON.stringify(data, null, 2)});\n`;

/** Writes `text` as `<dir>/<name>` and loads it, so both spellings are loaded under one file name. */
async function load(dir: string, name: string, text: string): Promise<LoadedConfig> {
  await temp.write(`${dir}-${name}`, text);
  return loadConfig(`${dir}-${name}`, temp.dir);
}

describe.each([
  ["YAML", "forage.yaml", referenceYaml, canonicalYaml],
  ["JSON", "forage.json", JSON.stringify(referenceData, null, 2), JSON.stringify(canonicalData, null, 2)],
  ["TypeScript", "forage.config.ts", typescript(referenceData), typescript(canonicalData)],
])("a %s config written with the reference's spellings", (_format, name, reference, canonical) => {
  it("loads into the same config as the same file in Forage's spelling", async () => {
    const [fromReference, fromCanonical] = [
      await load("reference", name, reference),
      await load("canonical", name, canonical),
    ];
    expect(fromReference.config).toEqual(fromCanonical.config);
    expect(fromReference.config.templates.implied).toEqual({
      network: { mode: "restricted", allow: ["api.example.org"] },
    });
    // The canonical file's only note: the URL itself does nothing (no option is ignored in silence).
    expect(fromCanonical.notes.map((note) => [note.path.join("."), note.message])).toEqual([
      ["proxy.url", expect.stringMatching(/^proxy\.url has no effect here: /)],
    ]);
  });

  it("resolves into the same model and generates the same files, byte for byte", async () => {
    const [fromReference, fromCanonical] = [
      await load("reference", name, reference),
      await load("canonical", name, canonical),
    ];
    const [referenceModel, canonicalModel] = [
      resolveModel(fromReference.config, name),
      resolveModel(fromCanonical.config, name),
    ];
    expect(referenceModel).toEqual(canonicalModel);
    expect(referenceModel.host.proxy.url).toBe("http://proxy.example.org:8080");
    expect(generateFiles(referenceModel)).toEqual(generateFiles(canonicalModel));
  });

  it("notes each reference spelling once, at its key, naming the new spelling", async () => {
    const { notes } = await load("reference", name, reference);
    expect(notes.map((note) => [note.path.join("."), note.severity])).toEqual([
      ["proxyUrl", "note"],
      ["templates.pinned.allowedHosts", "note"],
      ["templates.implied.allowedHosts", "note"],
      ["templates.named.allowedHosts", "note"],
    ]);
    expect(notes.map((note) => note.message)).toEqual([
      "proxyUrl is the reference's spelling of proxy.url, which has no effect here: agents reach Forage's API proxy on their sandbox's own link (set proxy.port, and auth on the agents); remove it",
      expect.stringMatching(
        /^allowedHosts is the reference's spelling of network\.allow: write network: \{ mode: "restricted", allow: \[\.\.\.\] \}$/,
      ),
      expect.stringMatching(
        /with no network option here, allowedHosts means mode "restricted"; not the reference's default "full", nor Forage's "none"/,
      ),
      expect.stringMatching(/^allowedHosts is the reference's spelling of network\.allow: /),
    ]);
    for (const note of notes) expect(note.line, formatDiagnostic(note)).toBeGreaterThan(0);
  });
});

describe("the notes' positions", () => {
  it("are the line and column of each alias key in YAML, printed as `file:line:col: path: note: …`", async () => {
    const { notes } = await load("reference", "forage.yaml", referenceYaml);
    expect(notes.map(where)).toEqual([
      "reference-forage.yaml:2:1",
      "reference-forage.yaml:6:5",
      "reference-forage.yaml:10:5",
      "reference-forage.yaml:13:5",
    ]);
    expect(formatDiagnostic(notes[1]!)).toBe(
      'reference-forage.yaml:6:5: templates.pinned.allowedHosts: note: allowedHosts is the reference\'s spelling of network.allow: write network: { mode: "restricted", allow: [...] }',
    );
  });

  it("are the line and column of each alias key in TypeScript", async () => {
    const { notes } = await load("reference", "forage.config.ts", typescript(referenceData));
    // JSON.stringify(…, null, 2) puts "proxyUrl" on line 5, column 3 of the generated file.
    expect(where(notes[0]!)).toBe("reference-forage.config.ts:5:3");
  });
});

describe("refusals: both spellings, or a list the mode would ignore", () => {
  /** Loads YAML that must be refused and returns `file:line:col: path: message` lines. */
  async function refusals(lines: string[]): Promise<string[]> {
    await temp.write("forage.yaml", [...lines, ""].join("\n"));
    return (await configErrorOf("forage.yaml", temp.dir)).message.split("\n");
  }

  it("refuses allowedHosts beside network.allow, at the allowedHosts key, saying to keep one list", async () => {
    expect(
      await refusals([
        "user: alice",
        "templates:",
        "  t:",
        "    network: { mode: restricted, allow: [a.example.org] }",
        "    allowedHosts: [b.example.org]",
      ]),
    ).toEqual([
      "forage.yaml:5:5: templates.t.allowedHosts: allowedHosts (the reference's spelling) and network.allow both list the allowed hosts: keep one list, in network.allow",
    ]);
  });

  it.each([
    ["network: full", "full"],
    ["network: none", "none"],
    ["network: { mode: full }", "full"],
  ])("refuses allowedHosts beside %s, naming the mode and the fix", async (network, mode) => {
    expect(
      await refusals(["user: alice", "templates:", "  t:", `    ${network}`, "    allowedHosts: [a.example.org]"]),
    ).toEqual([
      `forage.yaml:5:5: templates.t.allowedHosts: allowedHosts only applies to network "restricted", and this template's network is "${mode}": write network: { mode: "restricted", allow: [...] } with these hosts, or remove allowedHosts`,
    ]);
  });

  it("refuses proxyUrl beside proxy.url, at the proxyUrl key", async () => {
    expect(
      await refusals([
        "user: alice",
        "proxyUrl: http://a.example.org",
        "proxy: { url: http://b.example.org }",
        "templates: { t: {} }",
      ]),
    ).toEqual([
      "forage.yaml:2:1: proxyUrl: proxyUrl (the reference's spelling) and proxy.url both set the proxy's URL: keep one, in proxy.url",
    ]);
  });

  it("checks allowedHosts entries with network.allow's rules and messages, each at its own position", async () => {
    const lines = await refusals([
      "user: alice",
      "templates:",
      "  t:",
      "    network: restricted",
      "    allowedHosts:",
      "      - 10.0.0.1",
      "      - a.example.org:70000",
      "      - Upper.example.org",
    ]);
    expect(lines).toEqual([
      "forage.yaml:6:9: templates.t.allowedHosts[0]: must be a host name, not an IP address (allowlists follow DNS; hard-coded addresses are refused)",
      "forage.yaml:7:9: templates.t.allowedHosts[1]: port must be between 1 and 65535",
      expect.stringMatching(/^forage\.yaml:8:9: templates\.t\.allowedHosts\[2\]: must be a lower-case host name/),
    ]);
  });

  it("holds allowedHosts to network.allow's limit of 512 entries", async () => {
    const hosts = Array.from({ length: 513 }, (_, i) => `h${i}.example.org`);
    expect(
      await refusals([
        "user: alice",
        "templates:",
        "  t:",
        "    network: restricted",
        `    allowedHosts: [${hosts.join(", ")}]`,
      ]),
    ).toEqual([
      "forage.yaml:5:19: templates.t.allowedHosts: at most 512 allow entries; use '*.suffix' wildcards to cover many hosts",
    ]);
  });

  it("reports the refusals together with the config's other errors", async () => {
    const lines = await refusals([
      "user: alice",
      "templates:",
      "  t:",
      "    network: none",
      "    allowedHosts: [a.example.org]",
      "  u:",
      "    descripton: typo",
    ]);
    expect(lines.map((line) => line.split(": ")[1])).toEqual(["templates.t.allowedHosts", "templates.u.descripton"]);
  });

  it("shows the notes beside a later error that names the new spelling (proxy.url for proxyUrl)", async () => {
    await temp.write(
      "forage.yaml",
      [
        "user: alice",
        "proxyUrl: http://proxy.example.org:8080",
        "secrets: { key: /run/secrets/key }",
        "templates:",
        "  t:",
        "    agents:",
        "      claude: { package: claude-code, secretName: key, authEnvVar: ANTHROPIC_API_KEY, auth: proxy }",
        "",
      ].join("\n"),
    );
    const error = await configErrorOf("forage.yaml", temp.dir);
    expect(error.diagnostics.map((d) => d.message)).toEqual([expect.stringMatching(/remove proxy\.url/)]);
    expect(error.message.split("\n")).toEqual([
      expect.stringMatching(/^forage\.yaml:2:1: proxyUrl: note: proxyUrl is the reference's spelling of proxy\.url/),
      expect.stringMatching(/^forage\.yaml:7:\d+: templates\.t\.agents\.claude\.auth: .*remove proxy\.url/),
    ]);
  });
});

describe("an empty allowedHosts beside another mode", () => {
  it("is accepted like an empty network.allow, with a note saying to remove it", async () => {
    await temp.write(
      "forage.yaml",
      ["user: alice", "templates:", "  t:", "    network: full", "    allowedHosts: []", ""].join("\n"),
    );
    const loaded = await loadConfig("forage.yaml", temp.dir);
    expect(resolveModel(loaded.config, "forage.yaml")).toEqual(
      resolveModel(
        parseConfig({ user: "alice", templates: { t: { network: { mode: "full", allow: [] } } } }),
        "forage.yaml",
      ),
    );
    expect(resolveModel(loaded.config, "forage.yaml").templates[0]?.network).toEqual({
      mode: "full",
      allow: [],
      sni: false,
      ask: false,
    });
    expect(loaded.notes.map(formatDiagnostic)).toEqual([
      'forage.yaml:5:5: templates.t.allowedHosts: note: allowedHosts is the reference\'s spelling of network.allow, which only applies to mode "restricted": remove this empty list',
    ]);
  });
});

/*
 * Under `extends`, allowedHosts behaves exactly as `network: { mode, allow }` written in the same
 * template would: the alias is rewritten per template, before templates are merged.
 */
describe("allowedHosts under extends", () => {
  const claude = { package: "claude-code", hostConfigDir: "~/.claude" };

  /** The named template's network in a config with these templates. */
  function networkOf(templates: Record<string, TemplateInput>, name: string) {
    const config: ConfigInput = { user: "alice", templates };
    return resolveModel(parseConfig(config), "forage.yaml").templates.find((t) => t.name === name)?.network;
  }

  it("a child's allowedHosts replaces the parent's list and keeps the parent's sni, as a child's network.allow does", () => {
    const parent: TemplateInput = {
      agents: { claude },
      network: { mode: "restricted", allow: ["a.example.org"], sni: true },
    };
    const viaAlias = networkOf({ parent, child: { extends: "parent", allowedHosts: ["b.example.org"] } }, "child");
    const viaCanonical = networkOf(
      { parent, child: { extends: "parent", network: { mode: "restricted", allow: ["b.example.org"] } } },
      "child",
    );
    expect(viaAlias).toEqual(viaCanonical);
    expect(viaAlias).toEqual({
      mode: "restricted",
      allow: [{ entry: "b.example.org", host: "b.example.org", wildcard: false, port: null }],
      sni: true,
      ask: false,
    });
  });

  it('a child\'s allowedHosts without network makes it "restricted" even when the parent is "full"', () => {
    const network = networkOf(
      {
        parent: { agents: { claude }, network: "full" },
        child: { extends: "parent", allowedHosts: ["b.example.org"] },
      },
      "child",
    );
    expect(network?.mode).toBe("restricted");
    expect(network?.allow.map((rule) => rule.entry)).toEqual(["b.example.org"]);
  });

  it("a child's network \"none\" replaces a parent's allowedHosts, as it replaces a parent's network object", () => {
    const parent: TemplateInput = { agents: { claude }, network: "restricted", allowedHosts: ["a.example.org"] };
    expect(networkOf({ parent, child: { extends: "parent", network: "none" } }, "child")).toEqual({
      mode: "none",
      allow: [],
      sni: false,
      ask: false,
    });
  });

  it("a parent's allowedHosts is inherited by a child that only adds sni, as a parent's network.allow is", () => {
    const viaAlias = networkOf(
      {
        parent: { network: "restricted", allowedHosts: ["a.example.org"] },
        child: { extends: "parent", network: { mode: "restricted", sni: true } },
      },
      "child",
    );
    const viaCanonical = networkOf(
      {
        parent: { network: { mode: "restricted", allow: ["a.example.org"] } },
        child: { extends: "parent", network: { mode: "restricted", sni: true } },
      },
      "child",
    );
    expect(viaAlias).toEqual(viaCanonical);
    expect(viaAlias?.allow.map((rule) => rule.entry)).toEqual(["a.example.org"]);
    expect(viaAlias?.sni).toBe(true);
  });
});
