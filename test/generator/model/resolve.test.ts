import { describe, expect, it } from "vitest";
import { parseAllowEntry } from "../../../generator/model/allow-rule.js";
import { claudeBuiltinTools } from "../../../generator/model/resolve-template.js";
import { proxyAuditLogPath, runtimePaths } from "../../../runtime/core/paths.js";
import type { ConfigInput } from "../../../generator/config/schema/config.js";
import type { TemplateInput } from "../../../generator/config/schema/template.js";
import { model, template } from "./resolve-helpers.js";

const claude = { package: "claude-code", hostConfigDir: "~/.claude" };

describe("template inheritance (extends)", () => {
  it("merges the parent's agents with the child's by name, the child's agent replacing the parent's of the same name", () => {
    const child = template(
      {
        parent: { agents: { claude, codex: { package: "codex", hostConfigDir: "~/.codex" } } },
        child: {
          extends: "parent",
          agents: {
            codex: { package: "codex-beta", hostConfigDir: "~/.codex" },
            gemini: { package: "gemini-cli", hostConfigDir: "~/.gemini" },
          },
        },
      },
      "child",
    );
    expect(child.agents.map((a) => [a.name, a.package.join(".")])).toEqual([
      ["claude", "claude-code"],
      ["codex", "codex-beta"],
      ["gemini", "gemini-cli"],
    ]);
  });

  it("replaces the parent's lists with the child's instead of concatenating them", () => {
    const child = template(
      {
        parent: {
          extraPackages: ["ripgrep", "fd"],
          initCommands: ["make deps"],
          network: { mode: "restricted", allow: ["a.example.com", "b.example.com"] },
        },
        child: {
          extends: "parent",
          extraPackages: ["jq"],
          initCommands: ["npm ci"],
          network: { mode: "restricted", allow: ["c.example.com"] },
        },
      },
      "child",
    );
    expect(child.extraPackages).toEqual([["jq"]]);
    expect(child.initCommands).toEqual(["npm ci"]);
    expect(child.network.allow.map((rule) => rule.entry)).toEqual(["c.example.com"]);
  });

  it("merges a network object key by key, keeping parent keys the child does not set", () => {
    const child = template(
      {
        parent: { network: { mode: "restricted", allow: ["api.example.com"], sni: true } },
        child: { extends: "parent", network: { mode: "restricted", allow: ["other.example.com"] } },
      },
      "child",
    );
    expect(child.network).toEqual({
      mode: "restricted",
      allow: [parseAllowEntry("other.example.com")],
      sni: true,
      ask: false,
    });
  });

  it("replaces the network whole when the child changes the mode: a parent's allow and sni mean nothing in full", () => {
    const child = template(
      {
        parent: { network: { mode: "restricted", allow: ["api.example.com"], sni: true } },
        child: { extends: "parent", network: { mode: "full" } },
      },
      "child",
    );
    expect(child.network).toEqual({ mode: "full", allow: [], sni: false, ask: false });
  });

  it("inherits fields the child does not set", () => {
    const child = template(
      { parent: { description: "from parent", ssh: true, readOnlyWorkspace: true }, child: { extends: "parent" } },
      "child",
    );
    expect(child.description).toBe("from parent");
    expect(child.ssh).toBe(true);
    expect(child.readOnlyWorkspace).toBe(true);
  });

  it("applies several parents left to right, and the child last", () => {
    const templates: Record<string, TemplateInput> = {
      first: { description: "first", ssh: true, useProxy: true, extraPackages: ["ripgrep"] },
      second: { description: "second", ssh: false },
      child: { extends: ["first", "second"], useProxy: false },
    };
    const child = template(templates, "child");
    expect(child.description).toBe("second");
    expect(child.ssh).toBe(false);
    expect(child.useProxy).toBe(false);
    expect(child.extraPackages).toEqual([["ripgrep"]]);
  });

  it("flattens grandparents through the chain", () => {
    const grandchild = template(
      { root: { agents: { claude } }, middle: { extends: "root", description: "middle" }, leaf: { extends: "middle" } },
      "leaf",
    );
    expect(grandchild.agents.map((a) => a.name)).toEqual(["claude"]);
    expect(grandchild.description).toBe("middle");
  });

  it("leaves the parent template itself unchanged by its children", () => {
    const parent = template(
      {
        parent: { extraPackages: ["ripgrep"] },
        child: { extends: "parent", extraPackages: ["jq"], agents: { claude } },
      },
      "parent",
    );
    expect(parent.extraPackages).toEqual([["ripgrep"]]);
    expect(parent.agents).toEqual([]);
  });
});

describe("template defaults", () => {
  it('defaults the network to "none" with no allow list and no SNI check', () => {
    expect(template({ t: {} }, "t").network).toEqual({ mode: "none", allow: [], sni: false, ask: false });
  });

  it("defaults the multiplexer to tmux", () => {
    expect(template({ t: {} }, "t").multiplexer).toBe("tmux");
  });

  it("opens one tmux window per agent, named and running the agent, when tmuxWindows is not set", () => {
    const t = template({ t: { agents: { codex: { package: "codex", hostConfigDir: "~/.codex" }, claude } } }, "t");
    expect(t.tmuxWindows).toEqual([
      { name: "claude", command: "claude" },
      { name: "codex", command: "codex" },
    ]);
  });

  it("keeps tmuxWindows as written when set", () => {
    const t = template({ t: { agents: { claude }, tmuxWindows: [{ name: "shell", command: "bash" }] } }, "t");
    expect(t.tmuxWindows).toEqual([{ name: "shell", command: "bash" }]);
  });

  it("limits memory and tasks by default, and lifts a limit only when the template says infinity", () => {
    expect(template({ t: {} }, "t").resourceLimits).toEqual({ cpuQuota: null, memoryMax: "4G", tasksMax: 4096 });
    const lifted = template({ t: { resourceLimits: { memoryMax: "infinity", tasksMax: "infinity" } } }, "t");
    expect(lifted.resourceLimits).toEqual({ cpuQuota: null, memoryMax: null, tasksMax: null });
    const child = template(
      {
        base: { resourceLimits: { memoryMax: "infinity" } },
        child: { extends: "base", resourceLimits: { tasksMax: 64 } },
      },
      "child",
    );
    expect(child.resourceLimits).toEqual({ cpuQuota: null, memoryMax: null, tasksMax: 64 });
  });

  it("defaults the remaining template fields to empty or off", () => {
    const t = template({ t: {} }, "t");
    expect(t).toMatchObject({
      description: "",
      agents: [],
      extraPackages: [],
      readOnlyWorkspace: false,
      resourceLimits: { cpuQuota: null, memoryMax: "4G", tasksMax: 4096 },
      initCommands: [],
      mounts: [],
      useProxy: false,
    });
  });

  it("maps a string network mode to the same mode with no allow list", () => {
    expect(template({ t: { network: "full" } }, "t").network).toEqual({
      mode: "full",
      allow: [],
      sni: false,
      ask: false,
    });
  });
});

describe("agents", () => {
  it("expands permissions.skipAll into the full list of Claude's built-in tools", () => {
    const t = template({ t: { agents: { claude: { ...claude, permissions: { skipAll: true } } } } }, "t");
    expect(t.agents[0]?.permissions).toEqual({
      allow: [
        "Bash",
        "Edit",
        "Glob",
        "Grep",
        "NotebookEdit",
        "NotebookRead",
        "Read",
        "TodoRead",
        "TodoWrite",
        "WebFetch",
        "WebSearch",
        "Write",
      ],
      deny: [],
    });
    expect(t.agents[0]?.permissions?.allow).toEqual(claudeBuiltinTools);
  });

  it("keeps explicit allow/deny permission rules as written", () => {
    const t = template(
      { t: { agents: { claude: { ...claude, permissions: { allow: ["Read"], deny: ["Bash(curl:*)"] } } } } },
      "t",
    );
    expect(t.agents[0]?.permissions).toEqual({ allow: ["Read"], deny: ["Bash(curl:*)"] });
  });

  it("leaves permissions null when the agent sets none", () => {
    expect(template({ t: { agents: { claude } } }, "t").agents[0]?.permissions).toBeNull();
  });

  it("resolves an agent's secret to its host path and its path under /run/secrets", () => {
    const t = template(
      { t: { agents: { claude: { package: "claude-code", secretName: "key", authEnvVar: "ANTHROPIC_API_KEY" } } } },
      "t",
      { key: "/run/agenix/key" },
    );
    expect(t.agents[0]?.secret).toEqual({
      name: "key",
      hostPath: "/run/agenix/key",
      containerPath: "/run/secrets/key",
      envVar: "ANTHROPIC_API_KEY",
    });
  });

  it("splits the package attribute path into its segments", () => {
    const t = template(
      { t: { agents: { black: { package: "python3Packages.black", hostConfigDir: "~/.black" } } } },
      "t",
    );
    expect(t.agents[0]?.package).toEqual(["python3Packages", "black"]);
  });

  it("sorts agents by name", () => {
    const t = template(
      {
        t: { agents: { zed: { package: "z", hostConfigDir: "~/.z" }, alpha: { package: "a", hostConfigDir: "~/.a" } } },
      },
      "t",
    );
    expect(t.agents.map((a) => a.name)).toEqual(["alpha", "zed"]);
  });
});

describe("network allow entries", () => {
  it("parses `*.github.com:443` into host github.com, wildcard, port 443", () => {
    const t = template({ t: { network: { mode: "restricted", allow: ["*.github.com:443"] } } }, "t");
    expect(t.network.allow).toEqual([{ entry: "*.github.com:443", host: "github.com", wildcard: true, port: 443 }]);
  });

  it("parses a plain host name as exact, on any port", () => {
    expect(parseAllowEntry("api.anthropic.com")).toEqual({
      entry: "api.anthropic.com",
      host: "api.anthropic.com",
      wildcard: false,
      port: null,
    });
  });

  it("parses a host name with a port as exact on that port", () => {
    expect(parseAllowEntry("github.com:22")).toEqual({
      entry: "github.com:22",
      host: "github.com",
      wildcard: false,
      port: 22,
    });
  });

  it("keeps the allow entries in the order written", () => {
    const t = template({ t: { network: { mode: "restricted", allow: ["b.example.com", "a.example.com"] } } }, "t");
    expect(t.network.allow.map((r) => r.host)).toEqual(["b.example.com", "a.example.com"]);
  });
});

describe("the model as a whole", () => {
  it("sorts templates by name whatever the order in the file", () => {
    const m = model({ user: "alice", templates: { zulu: {}, alpha: {}, mike: {} } });
    expect(m.templates.map((t) => t.name)).toEqual(["alpha", "mike", "zulu"]);
  });

  it("records the source it was given, for generated headers", () => {
    expect(model({ user: "alice", templates: { t: {} } }).source).toBe("forage.yaml");
  });

  it("leaves the proxy audit log's default to run time, under the state directory in use", () => {
    const m = model({ user: "alice", stateDir: "/srv/forage", templates: { t: {} } });
    expect(m.host.proxy.auditLog).toBeNull();
    expect(proxyAuditLogPath(runtimePaths(m.host.stateDir, {}), m.host.proxy.auditLog)).toBe(
      "/srv/forage/proxy-audit.jsonl",
    );
    expect(
      proxyAuditLogPath(runtimePaths(m.host.stateDir, { FORAGE_STATE_DIR: "/tmp/s" }), m.host.proxy.auditLog),
    ).toBe("/tmp/s/proxy-audit.jsonl");
    expect(
      model({ user: "alice", proxy: { auditLog: "/var/log/forage-proxy.jsonl" }, templates: { t: {} } }).host.proxy
        .auditLog,
    ).toBe("/var/log/forage-proxy.jsonl");
  });

  it("gives a template the host agent identity, overridden field by field by the template's", () => {
    const m = model({
      user: "alice",
      agentIdentity: { gitUser: "Host Agent", gitEmail: "host@example.com" },
      templates: { t: { agentIdentity: { gitEmail: "t@example.com" } } },
    });
    expect(m.templates[0]?.agentIdentity).toEqual({ gitUser: "Host Agent", gitEmail: "t@example.com" });
  });

  it("is deterministic: the same config resolves to equal models", () => {
    const input: ConfigInput = {
      user: "alice",
      templates: { b: { extends: "a", agents: { claude } }, a: { network: "full" } },
    };
    expect(model(input)).toEqual(model(input));
  });
});

describe("a template's sshAgent", () => {
  it("asks for every signature unless it says confirm: false, and none is served without it", () => {
    expect(template({ t: { sshAgent: { keys: ["~/.ssh/id_ed25519"] } } }, "t").sshAgent).toEqual({
      keys: ["~/.ssh/id_ed25519"],
      confirm: true,
    });
    expect(template({ t: { sshAgent: { keys: ["SHA256:" + "a".repeat(43)], confirm: false } } }, "t").sshAgent).toEqual(
      { keys: ["SHA256:" + "a".repeat(43)], confirm: false },
    );
    expect(template({ t: {} }, "t").sshAgent).toBeNull();
  });
});
