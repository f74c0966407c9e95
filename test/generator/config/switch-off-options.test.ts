import { describe, expect, it } from "vitest";
import { configProbe } from "./temp-config.js";

/*
 * Options read by nothing while a switch beside them is off, or a mode excludes them (ARCHITECTURE.md rule
 * 16, issue 15): each is refused at its own key with the fix, or, where the reference's configs
 * write it, noted as having no effect. The valid spellings load, and leaving an option out gives
 * the same model as before (the defaults moved from the schema into the model).
 */
const head = "user: alice\nsecrets: { a: /run/keys/a }\n";
const key = "secretName: a, authEnvVar: ANTHROPIC_API_KEY";
const { problems, load } = configProbe(head);
// Without the secret: a config whose agents name no secret would carry a note on an unused one.
const bare = configProbe("user: alice\n");

const plain = "templates: { t: { network: none } }\n";

describe("monitor.interval", () => {
  it("is refused at its key while monitor.enable is off: only the daemon's monitor keeps it", async () => {
    expect(await problems(`monitor: { interval: 30 }\n${plain}`)).toEqual([
      "3:22: monitor.interval: interval is how often the daemon's monitor checks the sandboxes, and monitor.enable is off: set monitor.enable: true, or remove interval",
    ]);
  });

  it("is refused even at its default value, written beside enable: false", async () => {
    expect(await problems(`monitor: { enable: false, interval: 60 }\n${plain}`)).toEqual([
      expect.stringMatching(/^3:\d+: monitor\.interval: interval is how often/),
    ]);
  });

  it("is read with monitor.enable, and defaults to 60 seconds when left out", async () => {
    expect((await load(`monitor: { enable: true, interval: 30 }\n${plain}`)).model.host.monitor).toEqual({
      enable: true,
      interval: 30,
      autoRestart: false,
    });
    expect((await load(`monitor: { enable: true }\n${plain}`)).model.host.monitor).toEqual({
      enable: true,
      interval: 60,
      autoRestart: false,
    });
    expect((await load(plain)).model.host.monitor).toEqual({ enable: false, interval: 60, autoRestart: false });
  });
});

describe("workspace.useBeads", () => {
  it("refuses each field but enable, at its key, while enable is off or left out", async () => {
    const found = await problems(
      "templates:\n  t:\n    workspace:\n      useBeads: { branch: tracker, package: beads-unstable, containerPath: /workspace/.issues, repo: /srv/issues }\n",
    );
    const because = (field: string) =>
      `templates.t.workspace.useBeads.${field}: useBeads.${field} says how the beads branch is mounted, and useBeads.enable is off: set useBeads.enable: true, or remove ${field}`;
    expect(found).toEqual([
      `6:19: ${because("branch")}`,
      `6:36: ${because("package")}`,
      `6:61: ${because("containerPath")}`,
      `6:96: ${because("repo")}`,
    ]);
    expect(
      await problems("templates:\n  t:\n    workspace:\n      useBeads: { enable: false, branch: tracker }\n"),
    ).toEqual([`6:34: ${because("branch")}`]);
  });

  it("loads enable alone, on or off, and the fields beside enable: true", async () => {
    expect(
      (await load("templates:\n  t:\n    workspace:\n      useBeads: { enable: false }\n")).model.templates[0]?.mounts,
    ).toEqual([]);
    const model = (
      await load(
        "templates:\n  t:\n    workspace:\n      useBeads: { enable: true, branch: tracker, containerPath: /workspace/.issues }\n",
      )
    ).model;
    expect(model.templates[0]?.mounts).toEqual([
      {
        name: "beads",
        containerPath: "/workspace/.issues",
        hostPath: null,
        repo: null,
        mode: "jj",
        branch: "tracker",
        readOnly: false,
      },
    ]);
  });

  it("mounts the defaults when enable: true leaves the fields out", async () => {
    const model = (await load("templates:\n  t:\n    workspace:\n      useBeads: { enable: true }\n")).model;
    expect(model.templates[0]?.mounts).toEqual([
      {
        name: "beads",
        containerPath: "/workspace/.beads",
        hostPath: null,
        repo: null,
        mode: "jj",
        branch: "beads-sync",
        readOnly: false,
      },
    ]);
    expect(model.templates[0]?.extraPackages).toEqual([["beads"]]);
  });
});

describe("an agent's permissions", () => {
  it.each([
    ["codex", "Codex"],
    ["gemini-cli", "Gemini CLI"],
    ["llm-agents.opencode", "OpenCode"],
    ["aider-chat", "Aider"],
  ])("are refused at their key on %s, which is not Claude Code (only Claude Code reads them)", async (pkg, title) => {
    expect(
      await problems(`templates:\n  t:\n    agents:\n      x: { package: ${pkg}, permissions: { allow: [Read] } }\n`),
    ).toEqual([
      `6:${23 + pkg.length}: templates.t.agents.x.permissions: only Claude Code reads permissions (they become its managed settings, /etc/claude-code/managed-settings.json), and "${pkg}" is ${title}: remove permissions, and set ${title}'s own rules in its config`,
    ]);
  });

  it("of another program are refused alone, not also as differing from a Claude agent's", async () => {
    const yaml =
      "templates:\n  t:\n    agents:\n      c: { package: claude-code, permissions: { skipAll: true } }\n      x: { package: codex, permissions: { allow: [Read] } }\n";
    expect(await problems(yaml)).toEqual([
      expect.stringMatching(
        /^7:\d+: templates\.t\.agents\.x\.permissions: only Claude Code reads permissions .*"codex" is Codex: /,
      ),
    ]);
  });

  it("load with a note on a package not recognised as Claude Code nor as another agent", async () => {
    const { notes, model } = await bare.load(
      "templates:\n  t:\n    agents:\n      x: { package: my-claude, permissions: { allow: [Read] } }\n",
    );
    expect(notes).toEqual([
      '5:32: templates.t.agents.x.permissions: note: only Claude Code reads permissions (they become its managed settings, /etc/claude-code/managed-settings.json); "my-claude" is not recognised as Claude Code (whose package name contains "claude-code"): remove permissions unless it is Claude Code',
    ]);
    expect(model.templates[0]?.agents[0]?.permissions).toEqual({ allow: ["Read"], deny: [] });
  });

  it("load without a note on Claude Code, also under another attribute path or build name", async () => {
    for (const pkg of ["claude-code", "llm-agents.claude-code", "claude-code-bin"]) {
      const { notes, model } = await bare.load(
        `templates:\n  t:\n    agents:\n      c: { package: ${pkg}, permissions: { deny: [WebFetch] } }\n`,
      );
      expect(notes, pkg).toEqual([]);
      expect(model.templates[0]?.agents[0]?.permissions, pkg).toEqual({ allow: [], deny: ["WebFetch"] });
    }
  });

  it("left out (or null) is fine on any agent", async () => {
    expect(
      (
        await bare.load(
          "templates:\n  t:\n    agents:\n      x: { package: codex, permissions: null }\n      y: { package: aider-chat }\n",
        )
      ).notes,
    ).toEqual([]);
  });
});

describe("the proxy's settings", () => {
  it("load with a note each, at the key, when no agent goes by the proxy (it does not run)", async () => {
    const yaml = `proxy:\n  port: 9000\n  rateLimit: { requests: 10 }\n  auditLog: /var/log/p.jsonl\n  auditLogMaxBytes: 8192\n  caFile: /etc/ca.pem\n  allowUpstreams: ["https://127.0.0.1:8443"]\ntemplates:\n  t:\n    agents:\n      c: { package: claude-code, ${key} }\n`;
    const because = (field: string) =>
      `proxy.${field}: note: proxy.${field} has no effect: no agent goes by the API proxy (auth "proxy" or "placeholder", or an oauth login), so it does not run; remove it, or put an agent with a key behind the proxy`;
    expect((await load(yaml)).notes).toEqual([
      `4:3: ${because("port")}`,
      `5:3: ${because("rateLimit")}`,
      `6:3: ${because("auditLog")}`,
      `7:3: ${because("auditLogMaxBytes")}`,
      `8:3: ${because("caFile")}`,
      `9:3: ${because("allowUpstreams")}`,
    ]);
  });

  it("load without a note and are read when an agent goes by the proxy", async () => {
    const { notes, model } = await load(
      `proxy: { port: 9000, rateLimit: { requests: 10 } }\ntemplates:\n  t:\n    agents:\n      c: { package: claude-code, ${key}, auth: proxy }\n`,
    );
    expect(notes).toEqual([]);
    expect(model.host.proxy).toMatchObject({
      enable: true,
      port: 9000,
      rateLimit: { requests: 10, window: "1m", tokens: null },
    });
  });

  it("keep their defaults when left out", async () => {
    expect((await load(plain)).model.host.proxy).toEqual({
      enable: false,
      port: 8080,
      url: null,
      rateLimit: { requests: 60, window: "1m", tokens: null },
      auditLog: null,
      auditLogMaxBytes: 50 * 1024 * 1024,
      caFile: null,
      allowUpstreams: [],
    });
  });
});

describe("authorizedKeys", () => {
  const keys = 'authorizedKeys: ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB alice@laptop"]\n';

  it("loads with a note when no template runs sshd (the reference's configs set it: every sandbox of the reference ran sshd)", async () => {
    expect((await bare.load(keys + plain)).notes).toEqual([
      "2:1: authorizedKeys: note: authorizedKeys has no effect: they are the keys a sandbox's sshd accepts, and no template runs sshd (ssh: true); forage-ctl attach needs no key. Remove authorizedKeys, or set ssh: true in the templates you log in to over SSH",
    ]);
  });

  it("loads without a note when a template (or one extending it) runs sshd", async () => {
    expect(
      (await bare.load(`${keys}templates:\n  t: { network: none }\n  u: { extends: t, ssh: true }\n`)).notes,
    ).toEqual([]);
  });
});

describe("what only a writable workspace reads, beside readOnlyWorkspace: true", () => {
  it("refuses workspace.unprotected at its key, naming the templates it reaches", async () => {
    expect(
      await problems(
        "templates:\n  t:\n    readOnlyWorkspace: true\n    workspace: { unprotected: [.envrc] }\n  u: { extends: t }\n",
      ),
    ).toEqual([
      '6:18: templates.t.workspace.unprotected: unprotected lets the agent write protected paths of a writable workspace, and readOnlyWorkspace makes every workspace of templates "t", "u" read-only, so nothing reads it: remove unprotected, or readOnlyWorkspace',
    ]);
  });

  it("refuses a mount's readOnly: false at its key", async () => {
    expect(
      await problems(
        "templates:\n  t:\n    readOnlyWorkspace: true\n    workspace:\n      mounts:\n        docs: { containerPath: /workspace/docs, hostPath: /srv/docs, readOnly: false }\n",
      ),
    ).toEqual([
      '8:70: templates.t.workspace.mounts.docs.readOnly: readOnly: false asks for a writable mount, and readOnlyWorkspace makes every workspace of template "t" read-only, so nothing reads it: remove readOnly, or readOnlyWorkspace',
    ]);
  });

  it("loads both where a template extending it makes the workspace writable again", async () => {
    const yaml =
      "templates:\n  t:\n    readOnlyWorkspace: true\n    workspace:\n      unprotected: [.envrc]\n      mounts: { docs: { containerPath: /workspace/docs, hostPath: /srv/docs, readOnly: false } }\n  u: { extends: t, readOnlyWorkspace: false }\n";
    const { model } = await load(yaml);
    const u = model.templates.find((each) => each.name === "u");
    expect(u?.unprotectedPaths).toEqual([".envrc"]);
    expect(u?.mounts[0]?.readOnly).toBe(false);
    expect(model.templates.find((each) => each.name === "t")?.mounts[0]?.readOnly).toBe(true);
  });

  it("loads readOnly: true beside it (it says the same)", async () => {
    const { model } = await load(
      "templates:\n  t:\n    readOnlyWorkspace: true\n    workspace: { mounts: { docs: { containerPath: /workspace/docs, hostPath: /srv/docs, readOnly: true } } }\n",
    );
    expect(model.templates[0]?.mounts[0]?.readOnly).toBe(true);
  });
});

describe("a template's pushGate", () => {
  it("refuses protectedBranches at its key while enable is off", async () => {
    expect(await problems("templates:\n  t:\n    pushGate: { enable: false, protectedBranches: [main] }\n")).toEqual([
      "5:32: templates.t.pushGate.protectedBranches: pushGate.protectedBranches says which branches the push gate refuses, and pushGate.enable is off: remove enable: false, or protectedBranches",
    ]);
  });

  it("is on when written, protecting the upstream's default branch unless it names others, and off when left out or disabled", async () => {
    const gate = async (yaml: string) => (await load(`templates:\n  t:\n    ${yaml}\n`)).model.templates[0]?.pushGate;
    expect(await gate("pushGate: {}")).toEqual({ protectedBranches: null });
    expect(await gate("pushGate: { protectedBranches: [main, release/1.x] }")).toEqual({
      protectedBranches: ["main", "release/1.x"],
    });
    expect(await gate("pushGate: { enable: false }")).toBeNull();
    expect(await gate("network: none")).toBeNull();
  });

  it("refuses a branch name git would not take", async () => {
    expect(await problems("templates:\n  t:\n    pushGate: { protectedBranches: [../main] }\n")).toEqual([
      expect.stringMatching(/^5:\d+: templates\.t\.pushGate\.protectedBranches\[0\]: must be a branch name/),
    ]);
  });
});

describe("secrets", () => {
  it("load with a note at the key of a secret no agent names: nothing reads its file", async () => {
    expect((await load(plain)).notes).toEqual([
      '2:12: secrets.a: note: secret "a" has no effect: no agent names it (secretName) and no MCP server (secret or env), so its file is never read; remove it, or give an agent secretName: a',
    ]);
  });

  it("load without a note when an agent of any template names it", async () => {
    expect((await load(`templates:\n  t:\n    agents:\n      c: { package: claude-code, ${key} }\n`)).notes).toEqual(
      [],
    );
  });
});
