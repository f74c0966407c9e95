import { describe, expect, it } from "vitest";
import { checkReferences } from "../../../generator/config/check-references.js";
import { configSchema, type ConfigInput } from "../../../generator/config/schema/config.js";
import { problemsFromIssues } from "../../../generator/config/zod-issues.js";
import { resolveModel } from "../../../generator/model/resolve.js";
import { parseConfig } from "./parse-config.js";

const secrets = { a: "/run/keys/a", b: "/run/keys/b" };

/** The cross-reference problems of a config with these templates, as `path: message`. */
function problems(templates: ConfigInput["templates"]): string[] {
  return checkReferences(parseConfig({ user: "alice", secrets, templates })).map(
    (problem) => `${problem.path.join(".")}: ${problem.message}`,
  );
}

function agentsOf(templates: ConfigInput["templates"], name: string) {
  return (
    resolveModel(parseConfig({ user: "alice", secrets, templates }), "forage.yaml").templates.find(
      (t) => t.name === name,
    )?.agents ?? []
  );
}

describe("agents behind the API proxy", () => {
  it("default to the provider of their package, with its base-URL variables (OpenAI's includes /v1)", () => {
    const [claude, codex, gemini] = agentsOf(
      {
        t: {
          useProxy: true,
          agents: {
            claude: { package: "claude-code", secretName: "a", authEnvVar: "ANTHROPIC_API_KEY" },
            codex: { package: "codex", secretName: "b", authEnvVar: "OPENAI_API_KEY" },
            gemini: { package: "gemini-cli", secretName: "a", authEnvVar: "GEMINI_API_KEY", auth: "proxy" },
          },
        },
      },
      "t",
    );
    expect(claude).toMatchObject({
      auth: "proxy",
      api: {
        provider: "anthropic",
        upstream: "https://api.anthropic.com",
        header: "x-api-key",
        baseUrlEnv: { ANTHROPIC_BASE_URL: "" },
      },
    });
    expect(codex).toMatchObject({
      auth: "proxy",
      api: {
        provider: "openai",
        header: "authorization",
        value: "Bearer {key}",
        baseUrlEnv: { OPENAI_BASE_URL: "/v1" },
      },
    });
    expect(gemini).toMatchObject({
      api: {
        provider: "google",
        header: "x-goog-api-key",
        baseUrlEnv: { GOOGLE_GEMINI_BASE_URL: "" },
        hosts: ["generativelanguage.googleapis.com"],
      },
    });
  });

  it("give Aider LiteLLM's variables and OpenCode the AI SDK's, by the provider their key variable names", () => {
    const [aider, opencode] = agentsOf(
      {
        t: {
          agents: {
            aider: { package: "aider-chat", secretName: "a", authEnvVar: "ANTHROPIC_API_KEY", auth: "placeholder" },
            opencode: { package: "opencode", secretName: "a", authEnvVar: "ANTHROPIC_API_KEY", auth: "placeholder" },
          },
        },
      },
      "t",
    );
    expect(aider?.api?.baseUrlEnv).toEqual({ ANTHROPIC_API_BASE: "", ANTHROPIC_BASE_URL: "" });
    expect(opencode?.api?.baseUrlEnv).toEqual({ ANTHROPIC_BASE_URL: "/v1" });
  });

  it("keep auth wrapper, and no API, without useProxy or auth", () => {
    const [claude] = agentsOf(
      { t: { agents: { claude: { package: "claude-code", secretName: "a", authEnvVar: "ANTHROPIC_API_KEY" } } } },
      "t",
    );
    expect(claude).toMatchObject({ auth: "wrapper", api: null });
  });

  it("report an agent whose provider cannot be told, at api.provider", () => {
    expect(
      problems({ t: { agents: { x: { package: "mytool", secretName: "a", authEnvVar: "MY_KEY", auth: "proxy" } } } }),
    ).toEqual([
      expect.stringMatching(
        /^templates\.t\.agents\.x\.api\.provider: agent "x": cannot tell which API "mytool" with MY_KEY talks to: set api\.provider/,
      ),
    ]);
  });

  it("report a custom provider without where to send, which header or which variables", () => {
    expect(
      problems({
        t: {
          agents: {
            x: { package: "mytool", secretName: "a", authEnvVar: "MY_KEY", auth: "proxy", api: { provider: "custom" } },
          },
        },
      }),
    ).toEqual([
      expect.stringMatching(/^templates\.t\.agents\.x\.api: .*needs api\.upstream, api\.header, api\.baseUrlEnv/),
    ]);
  });

  it("report one secret given two ways in a template, with inherited agents and useProxy", () => {
    const found = problems({
      parent: {
        useProxy: true,
        agents: { claude: { package: "claude-code", secretName: "a", authEnvVar: "ANTHROPIC_API_KEY" } },
      },
      child: {
        extends: "parent",
        agents: { aider: { package: "aider-chat", secretName: "a", authEnvVar: "ANTHROPIC_API_KEY", auth: "wrapper" } },
      },
    });
    expect(found).toEqual([
      expect.stringMatching(
        /^templates\.child\.agents\.aider\.auth: agent "aider" gets secret "a" by wrapper but agent "claude" by proxy/,
      ),
    ]);
  });

  it("refuse a key header that frames the request, and base-URL variables that are not URL variables", () => {
    const agent = (api: Record<string, unknown>) =>
      configSchema.safeParse({
        user: "alice",
        secrets,
        templates: {
          t: {
            agents: {
              x: {
                package: "mytool",
                secretName: "a",
                authEnvVar: "MY_KEY",
                auth: "proxy",
                api: {
                  provider: "custom",
                  upstream: "https://api.example.com",
                  header: "x-key",
                  baseUrlEnv: { MY_URL: "" },
                  ...api,
                },
              },
            },
          },
        },
      });
    expect(agent({}).success).toBe(true);
    expect(agent({ header: "content-length" }).error?.issues[0]?.message).toMatch(
      /must not be a header that frames or routes/,
    );
    for (const name of ["LD_PRELOAD", "PATH", "NODE_OPTIONS", "BASH_ENV", "MY_KEY"]) {
      expect(problemsFromIssues(agent({ baseUrlEnv: { [name]: "" } }).error?.issues ?? [])[0]?.message, name).toMatch(
        new RegExp(`the name "${name}" must be an upper-case variable ending in _URL`),
      );
    }
    expect(agent({ baseUrlEnv: {} }).error?.issues[0]?.message).toMatch(/name at least one variable/);
  });

  it("report proxy.url with agents behind the built-in proxy (it tells sandboxes apart by their link)", () => {
    const found = checkReferences(
      parseConfig({
        user: "alice",
        secrets,
        proxy: { url: "http://proxy.example:8080" },
        templates: {
          t: {
            agents: {
              claude: { package: "claude-code", secretName: "a", authEnvVar: "ANTHROPIC_API_KEY", auth: "placeholder" },
            },
          },
        },
      }),
    );
    expect(found.map((problem) => problem.message)).toEqual([
      expect.stringMatching(/uses auth placeholder, which needs the built-in proxy.*remove proxy\.url/),
    ]);
  });

  it("refuse auth proxy without a secret, in the schema", () => {
    const parsed = configSchema.safeParse({
      user: "alice",
      templates: { t: { agents: { x: { package: "claude-code", auth: "proxy" } } } },
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toMatch(/auth proxy and placeholder need the key's secret/);
  });
});
