import { chmodSync, copyFileSync } from "node:fs";
import { execa } from "execa";
import { cliPath } from "../cli/run-cli.js";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { TestLoginProvider } from "../support/test-login-provider.js";
import { TestUpstream } from "../support/test-upstream.js";
import { TestHost } from "./harness.js";
import { callApi, inSandbox as inSandboxOf, type Reply } from "./sandbox-calls.js";
import { waitForProxy } from "./proxy-ready.js";

/*
 * Subscription logins end to end: `forage-ctl auth set` as a user would run it, real sandboxes,
 * and a real HTTPS token endpoint and API on the host's loopback that behave like the agents'
 * providers (test-login-provider.ts). The agents are node standing in for the programs (the
 * login's kind comes from the package name; host-root sandboxes run the host's node).
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "nft", "tmux");
const proxyPort = 18214;

function templates(port: number): string {
  const api = (flavor: string): string =>
    `api: { upstream: "https://localhost:${port}/${flavor}/api", tokenUrl: "https://localhost:${port}/${flavor}/oauth/token" }`;
  // No context: Claude's wrapper would pass node (standing in for claude) --append-system-prompt.
  return `  tok:
    network: none
    context: { enable: false }
    agents:
      claude: { package: claude-code, executable: node, login: token }
  tokp:
    network: none
    context: { enable: false }
    agents:
      claudep: { package: claude-code, executable: node, login: token, auth: proxy, api: { upstream: "https://localhost:${port}/claude/api" } }
  oa:
    network: none
    context: { enable: false }
    agents:
      claudeo: { package: claude-code, executable: node, login: oauth, ${api("claude")} }
      codex: { package: codex, executable: node, login: oauth, ${api("codex")} }
`;
}

describe.skipIf(!tools.run || !isRoot())("subscription logins kept on the host", () => {
  const upstream = new TestUpstream();
  let claude: TestLoginProvider;
  let codex: TestLoginProvider;
  let host: TestHost;
  let setupToken: string;
  let claudeLogin: { accessToken: string; refreshToken: string; expiresAt: number };

  beforeAll(async () => {
    await upstream.start();
    claude = new TestLoginProvider("claude", upstream, "/claude");
    codex = new TestLoginProvider("codex", upstream, "/codex");
    host = new TestHost("10.214", "nobody", templates(upstream.port), "", {
      topLevel: `proxy: { port: ${proxyPort}, caFile: "${upstream.caFile}", allowUpstreams: ["https://localhost:${upstream.port}"] }`,
    });
    setupToken = claude.issue().accessToken;
    // An expired access token: the host must refresh it before the first request.
    claudeLogin = claude.issue(-1000);
  }, 60_000);
  afterAll(async () => {
    await host?.cleanup();
    await upstream.stop();
  });

  const inSandbox = (sandbox: string, ...command: string[]): Promise<string> => inSandboxOf(host, sandbox, ...command);
  const call = (
    sandbox: string,
    agent: string,
    baseVariable: string,
    path: string,
    ...headers: string[]
  ): Promise<Reply> => callApi(host, sandbox, agent, baseVariable, path, ...headers);
  const up = async (name: string, template: string): Promise<void> => {
    const workspace = host.workspace(name);
    copyFileSync(fileURLToPath(new URL("../support/api-client.mjs", import.meta.url)), join(workspace, "client.mjs"));
    const result = await host.run(["up", name, "-t", template, "-w", workspace]);
    expect(result.exitCode, result.stderr).toBe(0);
  };

  it("refuses to start an agent whose login is not stored, naming the command that stores it", async () => {
    const result = await host.run(["up", "early", "-t", "tok", "-w", host.workspace("early")]);
    expect(result.exitCode).toBe(6);
    expect(result.stderr).toContain("forage-ctl auth set claude");
    expect((await host.run(["ps", "--json"])).stdout).not.toContain('"early"');
  });

  it("stores logins read from stdin and shows them without their values", async () => {
    expect((await host.run(["auth", "set", "claude"], `${setupToken}\n`)).exitCode).toBe(0);
    expect((await host.run(["auth", "set", "claudep"], `${setupToken}\n`)).exitCode).toBe(0);
    const file = { claudeAiOauth: { ...claudeLogin, scopes: ["user:inference"], subscriptionType: "max" } };
    expect((await host.run(["auth", "set", "claudeo"], JSON.stringify(file))).exitCode).toBe(0);
    const codexLogin = codex.issue();
    const auth = {
      auth_mode: "chatgpt",
      OPENAI_API_KEY: null,
      tokens: {
        id_token: codexLogin.accessToken,
        access_token: codexLogin.accessToken,
        refresh_token: codexLogin.refreshToken,
        account_id: codex.accountId,
      },
    };
    expect((await host.run(["auth", "set", "codex"], JSON.stringify(auth))).exitCode).toBe(0);
    const status = await host.run(["auth", "status", "--json"]);
    const listed = JSON.parse(status.stdout) as { agent: string; stored: string; state: string }[];
    expect(listed.map((entry) => [entry.agent, entry.stored, entry.state])).toEqual([
      ["claude", "token", "valid"],
      ["claudeo", "oauth", "refreshes"],
      ["claudep", "token", "valid"],
      ["codex", "oauth", "valid"],
    ]);
    expect(status.stdout).not.toContain(setupToken);
    expect(status.stdout).not.toContain(claudeLogin.refreshToken);
  });

  it("refuses a token for an oauth agent and an API key as a login, without echoing either", async () => {
    const wrongKind = await host.run(["auth", "set", "claudeo"], "sk-ant-oat01-something\n");
    expect(wrongKind.exitCode).toBe(64);
    expect(wrongKind.stderr).toContain("~/.claude/.credentials.json");
    const apiKey = await host.run(["auth", "set", "claude"], "sk-ant-api03-secretvalue\n");
    expect(apiKey.exitCode).toBe(64);
    expect(apiKey.stderr).toContain("API key");
    expect(apiKey.stderr).not.toContain("secretvalue");
  });

  it("gives a token login to the agent's process only, with auth wrapper", async () => {
    await up("lt", "tok");
    expect(
      (
        await inSandbox("lt", "/opt/forage/bin/claude", "-e", "console.log(process.env.CLAUDE_CODE_OAUTH_TOKEN)")
      ).trim(),
    ).toBe(setupToken);
    // A login shell of the sandbox does not have it.
    expect(await inSandbox("lt", "sh", "-c", "echo ${CLAUDE_CODE_OAUTH_TOKEN:-unset}")).toBe("unset\n");
    expect(JSON.parse(await host.sh("lt", "cat ~/.claude.json"))).toEqual({ hasCompletedOnboarding: true });
  });

  it("keeps a token login on the host with auth proxy: the sandbox holds a stand-in that works", async () => {
    await up("lp", "tokp");
    await waitForProxy(host, ["lp"]);
    const standIn = (
      await inSandbox("lp", "/opt/forage/bin/claudep", "-e", "console.log(process.env.CLAUDE_CODE_OAUTH_TOKEN)")
    ).trim();
    expect(standIn).toMatch(/^forage-login-stand-in-[0-9a-f]{32}$/);
    const reply = await call(
      "lp",
      "claudep",
      "ANTHROPIC_BASE_URL",
      "/v1/messages",
      "authorization=Bearer {env:CLAUDE_CODE_OAUTH_TOKEN}",
    );
    expect(reply.status, reply.body ?? reply.error).toBe(200);
    expect(upstream.requestsTo("/claude/api").at(-1)?.headers.authorization).toBe(`Bearer ${setupToken}`);
  });

  it("starts oauth agents logged in with stand-in files, refreshes on the host, and leaves no real token inside", async () => {
    await up("lo", "oa");
    await waitForProxy(host, ["lo"]);
    const credentials = JSON.parse(await host.sh("lo", "cat ~/.claude/.credentials.json")) as {
      claudeAiOauth: Record<string, unknown>;
    };
    expect(credentials.claudeAiOauth.accessToken).toMatch(/^forage-login-stand-in-/);
    expect(credentials.claudeAiOauth.subscriptionType).toBe("max");
    expect(credentials.claudeAiOauth.expiresAt).toBeGreaterThan(Date.now() + 365 * 24 * 3600_000);
    const before = claude.refreshes;
    const reply = await call(
      "lo",
      "claudeo",
      "ANTHROPIC_BASE_URL",
      "/v1/messages",
      "authorization=Bearer forage-login-stand-in",
    );
    expect(reply.status, reply.body ?? reply.error).toBe(200);
    expect(claude.refreshes).toBe(before + 1);
    const codexReply = await call("lo", "codex", "OPENAI_BASE_URL", "/responses");
    expect(codexReply.status, codexReply.body ?? codexReply.error).toBe(200);
    const auth = JSON.parse(await host.sh("lo", "cat ~/.codex/auth.json")) as { tokens: Record<string, string> };
    expect(auth.tokens.account_id).toBe(codex.accountId);
    // Nothing real anywhere the sandbox can read: its home, its secrets, any process's environment.
    const everything = await host.sh(
      "lo",
      "cat ~/.claude/.credentials.json ~/.codex/auth.json /run/secrets/_proxy/* /proc/[0-9]*/environ 2>/dev/null; true",
    );
    const variables = JSON.parse(
      await inSandbox("lo", "/opt/forage/bin/codex", "-e", "console.log(JSON.stringify(Object.keys(process.env)))"),
    ) as string[];
    expect(variables).toContain("OPENAI_BASE_URL");
    // Control: the read reached the stand-ins, so finding no real token there means something.
    expect(everything).toMatch(/"accessToken": ?"forage-login-stand-in-/);
    for (const real of [claudeLogin.accessToken, claudeLogin.refreshToken, "rt-claude", "rt-codex", setupToken])
      expect(everything).not.toContain(real);
  });

  it("takes and shows logins from the configured user through the daemon (no sudo), never echoing a value", async () => {
    // The user reaches the daemon's socket in the run directory, as a person without sudo would.
    chmodSync(host.dir, 0o711);
    const asUser = async (
      args: string[],
      input?: string,
    ): Promise<{ exitCode: number; stdout: string; stderr: string }> => {
      const result = await execa(
        "setpriv",
        ["--reuid=65534", "--regid=65534", "--clear-groups", "--", process.execPath, cliPath, ...args],
        {
          env: { PATH: "/usr/bin:/bin", FORAGE_RUN_DIR: host.env.FORAGE_RUN_DIR ?? "" },
          extendEnv: false,
          reject: false,
          ...(input === undefined ? { stdin: "ignore" as const } : { input }),
        },
      );
      return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
    };
    const fresh = claude.issue().accessToken;
    const set = await asUser(["auth", "set", "claudep"], `${fresh}\n`);
    expect(set.exitCode, set.stderr).toBe(0);
    expect(set.stdout).toMatch(/^stored the token login of claudep; valid until \d{4}-/);
    const status = await asUser(["auth", "status"]);
    expect(status.stdout).toMatch(/^AGENT +KIND +STATE +SET +EXPIRES\n/);
    expect(status.stdout).not.toContain(fresh);
    // The proxy uses the new token at once, without a restart of anything.
    expect((await call("lp", "claudep", "ANTHROPIC_BASE_URL", "/v1/messages")).status).toBe(200);
    expect(upstream.requestsTo("/claude/api").at(-1)?.headers.authorization).toBe(`Bearer ${fresh}`);
  });

  it("removes a login, after which the proxy says how to store it again", async () => {
    expect((await host.run(["auth", "remove", "claudeo"])).exitCode).toBe(0);
    const reply = await call("lo", "claudeo", "ANTHROPIC_BASE_URL", "/v1/messages");
    expect(reply.status).toBe(503);
    expect(reply.body).toContain("forage-ctl auth set claudeo");
    expect((await host.run(["auth", "remove", "claudeo"])).exitCode).toBe(2);
  });
});
