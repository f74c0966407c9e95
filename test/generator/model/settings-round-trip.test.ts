import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkReferences } from "../../../generator/config/check-references.js";
import type { ConfigInput } from "../../../generator/config/schema/config.js";
import { protectedPaths } from "../../../generator/config/schema/protected-paths.js";
import { proxyMethods } from "../../../generator/config/schema/proxy-filter.js";
import { allowableNames, seccompGroups } from "../../../generator/config/schema/seccomp.js";
import type { Model } from "../../../generator/model/model.js";
import { resolveModel } from "../../../generator/model/resolve.js";
import { decodeSettings, encodeSettings } from "../../../generator/model/settings-codec.js";
import { settingsDocumentSchema } from "../../../generator/model/settings-document.js";
import { goldenCases, loadCaseModel, repoRoot } from "../../golden/cases.js";
import { descriptionOf, undescribedFields } from "../../support/schema-descriptions.js";
import { parseConfig } from "../config/parse-config.js";

/*
 * forage.json is written (encodeSettings) and read (decodeSettings) through one schema: whatever
 * the generator writes, forage-ctl reads back as the same model, through JSON as on disk.
 */

/** model → encode → JSON text → parse → decode, with the source the model had. */
const roundTrip = (model: Model): Model =>
  decodeSettings(JSON.parse(JSON.stringify(encodeSettings(model), null, 2)), model.source);

/** A config validated as `generate` validates it (schema and cross-references), resolved. */
function checkedModel(input: ConfigInput): Model {
  const config = parseConfig(input);
  expect(checkReferences(config)).toEqual([]);
  return resolveModel(config, "forage.yaml");
}

describe("the settings codec: every config comes back as the model it was", () => {
  it("covers every example: each examples/<name>/ is a golden case", () => {
    const examples = readdirSync(join(repoRoot, "examples"));
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples)
      expect(goldenCases.map((c) => c.input.split("/").slice(0, 2).join("/"))).toContain(`examples/${example}`);
  });

  it.each(goldenCases)("round-trips the golden case $name", async ({ input }) => {
    const model = await loadCaseModel(input);
    expect(roundTrip(model)).toStrictEqual(model);
  });

  it("decodes with the file's path as the model's source", async () => {
    const model = await loadCaseModel(goldenCases[0]?.input ?? "");
    expect(decodeSettings(JSON.parse(JSON.stringify(encodeSettings(model))), "/etc/forage/forage.json").source).toBe(
      "/etc/forage/forage.json",
    );
  });

  it("round-trips a host at every limit the config allows", () => {
    const model = checkedModel({
      user: "_x",
      templates: { t: {} },
      externalInterface: "eth0.100",
      containerUsername: "a",
      monitor: { enable: true, interval: 86_400, autoRestart: true },
      proxy: {
        enable: true,
        port: 65535,
        url: "http://10.0.0.1:1",
        rateLimit: { requests: 1_000_000, window: "99h", tokens: 1_000_000_000 },
        auditLogMaxBytes: 1024 ** 3,
        caFile: "/etc/ca.pem",
      },
      network: {
        base: "255.255",
        upstreamResolver: "",
        admitPrivate: Array.from({ length: 64 }, (_, i) => `10.${i}.0.0/16`),
      },
      stateVersion: "99.99",
    });
    expect(roundTrip(model)).toStrictEqual(model);
  });

  it("round-trips a template at every limit, and what the model derives beyond them", () => {
    const secrets = { one: "/run/keys/one", two: "/run/keys/two" };
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`a${i}`, { package: "hello" }]));
    const model = checkedModel({
      user: "alice",
      secrets,
      // Upstreams on addresses: an address is not an allowlist entry, yet it is the default placeholder host.
      proxy: { allowUpstreams: ["https://127.0.0.1:8443", "https://[::1]:9443"] },
      templates: {
        edge: {
          description: "x".repeat(200),
          agents: {
            ...many,
            local: {
              package: "llm-agents.codex",
              secretName: "one",
              authEnvVar: "OPENAI_API_KEY",
              auth: "placeholder",
              api: {
                provider: "custom",
                upstream: "https://127.0.0.1:8443/v1/",
                header: "authorization",
                value: "Bearer {key}",
                baseUrlEnv: { OPENAI_BASE_URL: "/v1" },
              },
              // The whole home: the container directory keeps a trailing '/'.
              hostConfigDir: "~/",
            },
            v6: {
              package: "claude-code",
              secretName: "two",
              authEnvVar: "ANTHROPIC_API_KEY",
              auth: "proxy",
              api: { upstream: "https://[::1]:9443" },
            },
          },
          extraPackages: Array.from({ length: 256 }, (_, i) => `p${i}`),
          network: {
            mode: "restricted",
            allow: [...Array.from({ length: 511 }, (_, i) => `h${i}.example.com:${i + 1}`), "*.example.org"],
            sni: true,
          },
          resourceLimits: { cpuQuota: "99999%", memoryMax: "infinity", tasksMax: "infinity" },
          initCommands: Array.from({ length: 64 }, () => "y".repeat(4096)),
          workspace: {
            mounts: {
              docs: { containerPath: "/workspace/docs", hostPath: "~/docs" },
              lib: { containerPath: "/lib-src", repo: "/srv/lib", branch: "feature/x" },
            },
            // The config does not check useBeads' repo the way it checks a mount's.
            useBeads: { enable: true, repo: "Any Repo" },
            unprotected: [...protectedPaths],
            maxSize: "9999999T",
          },
          useProxy: true,
          proxyFilter: {
            methods: [...proxyMethods],
            pathPrefixes: Array.from({ length: 64 }, (_, i) => `/v${i}/`),
            maxRequestBytes: 1024 ** 3,
          },
          // Every name a config takes: the namespace calls only as their group.
          seccomp: {
            allow: allowableNames.filter((name) => !(seccompGroups.namespaces as readonly string[]).includes(name)),
          },
          ssh: true,
          multiplexer: "tmux",
        },
      },
    });
    const edge = model.templates[0];
    expect(edge?.tmuxWindows.length).toBe(42);
    expect(edge?.extraPackages.length).toBe(257);
    expect(edge?.agents.find((agent) => agent.name === "local")?.containerConfigDir).toBe("/home/agent/");
    expect(edge?.agents.find((agent) => agent.name === "v6")?.api?.hosts).toEqual(["[::1]:9443"]);
    expect(roundTrip(model)).toStrictEqual(model);
  });

  it("writes keys sorted, so the file is deterministic", async () => {
    const text = JSON.stringify(encodeSettings(await loadCaseModel(goldenCases[0]?.input ?? "")));
    const keys = Object.keys(JSON.parse(text) as object);
    expect(keys).toEqual([...keys].sort());
    expect(keys).toEqual(["$comment", "host", "templates", "version"]);
  });
});

describe("the settings document's schema", () => {
  it("has a description on the root and on every field, at any depth", () => {
    expect(descriptionOf(settingsDocumentSchema)).toBeTruthy();
    expect(undescribedFields(settingsDocumentSchema, ""), "fields without .describe()").toEqual([]);
  });
});
