import { copyFileSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { TestHosts } from "../support/test-hosts.js";
import { TestHost } from "./harness.js";
import { inSandbox, mcpClient, type ToolAnswer } from "./sandbox-calls.js";
import { waitForProxy } from "./proxy-ready.js";

/*
 * A published stdio MCP server (@modelcontextprotocol/server-everything, bundled into the
 * server's workspace: its sandbox has node from the host's /usr, not this repository's
 * node_modules) run in a sandbox of its own beside a real agent's sandbox: made by `up`, given its
 * secret as an environment variable there alone, reaching only its template's allow list, reached
 * by the agent only through the MCP gate, and removed with the agent's sandbox. Every packet goes
 * to loopback, a sandbox's host end, or the test hosts of a namespace made here.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "nft", "tmux");
const token = "tok-everything-31c5e9a07b2d48f6";
const proxyPort = 18098;
const hosts = new TestHosts("fth243", "10.199.243", "fd99:1243");
const [api, blocked] = hosts.v4 as [string, string];
const zone = { "api.test.example": { A: [api] }, "blocked.test.example": { A: [blocked] } };

interface Probe {
  reply?: string;
  error?: string;
}

describe.skipIf(!tools.run || !isRoot())("a stdio MCP server in a sandbox of its own, behind the MCP gate", () => {
  let host: TestHost;
  let serverCode: string;
  // The host is made in beforeAll: the client is asked for at each call.
  const list = (): Promise<string[]> => mcpClient(host, "mc", "everything").list();
  const call = (tool: string, args?: Record<string, unknown>): Promise<ToolAnswer> =>
    mcpClient(host, "mc", "everything").call(tool, args);
  const probe = async (sandbox: string, ...args: string[]): Promise<Probe> =>
    JSON.parse(await inSandbox(host, sandbox, "node", "/workspace/probe.mjs", ...args)) as Probe;

  beforeAll(async () => {
    await hosts.start(zone);
    host = new TestHost(
      "10.198",
      "nobody",
      "", // the templates follow, once the server's workspace is known
      `upstreamResolver: "${hosts.dns}", admitPrivate: ["10.199.243.0/24"]`,
      { secrets: { "everything-token": token }, topLevel: `proxy: { port: ${proxyPort} }` },
    );
    serverCode = host.workspace("everything-code");
    host.addTemplates(`  srv:
    network: { mode: restricted, allow: ["api.test.example"] }
  tools:
    network: none
    agents:
      helper: { package: nodejs, executable: node }
    mcp:
      servers:
        everything:
          command: [node, /workspace/everything/index.js, stdio]
          template: srv
          env: { API_TOKEN: everything-token }
          workspace: "${serverCode}"
          tools: { allow: [echo, get-sum, get-env], deny: ["toggle-*"] }
  broken-tools:
    network: none
    agents:
      helper: { package: nodejs, executable: node }
    mcp:
      servers:
        lost: { command: [node, x.js], template: srv, workspace: /nonexistent/forage-mcp }
`);
    const workspace = host.workspace("mc");
    await build({
      input: fileURLToPath(new URL("../support/mcp-client.mjs", import.meta.url)),
      platform: "node",
      logLevel: "warn",
      output: { file: join(workspace, "mcp-client.mjs"), format: "esm" },
    });
    await build({
      input: createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js"),
      platform: "node",
      logLevel: "warn",
      output: { dir: join(serverCode, "everything"), format: "esm" },
    });
    const prober = fileURLToPath(new URL("../support/net-probe.mjs", import.meta.url));
    for (const dir of [workspace, serverCode]) copyFileSync(prober, join(dir, "probe.mjs"));
    const up = await host.run(["up", "mc", "-t", "tools", "-w", workspace]);
    expect(up.exitCode, up.stderr).toBe(0);
    await waitForProxy(host, ["mc"]);
  }, 240_000);
  afterAll(async () => {
    await host?.cleanup();
    hosts.stop();
  });

  it("makes the server's sandbox with the agent's, from the server's template; the secret is there and nowhere in the agent's", async () => {
    const listed = JSON.parse((await host.run(["ps", "--json"])).stdout) as {
      name: string;
      template: string;
      mcpServerOf?: unknown;
    }[];
    expect(listed.map(({ name, template, mcpServerOf }) => ({ name, template, mcpServerOf }))).toEqual([
      { name: "mc", template: "tools", mcpServerOf: undefined },
      {
        name: "mc--everything",
        template: "srv",
        mcpServerOf: expect.objectContaining({ sandbox: "mc", server: "everything" }),
      },
    ]);
    expect(await inSandbox(host, "mc--everything", "cat", "/run/secrets/_mcp-env/API_TOKEN")).toBe(`${token}\n`);
    const searched = await host.run([
      "exec",
      "mc",
      "--",
      "bash",
      "-c",
      `grep -rl -- "${token}" /home /run/secrets /workspace /tmp /etc /proc/*/environ 2>/dev/null; true`,
    ]);
    expect(searched.exitCode, searched.stderr).toBe(0);
    expect(searched.stdout).toBe("");
  }, 60_000);

  it("lets the agent list and call the server's tools through the gate, denied ones left out", async () => {
    const names = await list();
    expect(names).toContain("echo");
    expect(names.filter((name) => name.startsWith("toggle-"))).toEqual([]);
    expect(await call("echo", { message: "from the sandbox" })).toEqual({
      text: "Echo: from the sandbox",
      isError: false,
    });
    const refused = await call("toggle-simulated-logging");
    expect(refused.isError).toBe(true);
  }, 60_000);

  it("runs the server with its secret in its environment, and masks it in the answer the agent gets", async () => {
    const env = await call("get-env");
    expect(env.text).toContain('"API_TOKEN": "[forage-redacted');
    expect(env.text).not.toContain(token);
    // The server's environment is the sandbox's and the secret's: nothing of the daemon's.
    expect(env.text).not.toContain("FORAGE_STATE_DIR");
    // What it says on stderr stays in its own sandbox.
    expect(await inSandbox(host, "mc--everything", "cat", "/tmp/forage-mcp-server.log")).toContain(
      "Starting default (STDIO) server",
    );
  }, 60_000);

  it("lets the server's sandbox reach its allow list and nothing else; the agent's (network none) reaches neither", async () => {
    expect((await probe("mc--everything", "tcp", "api.test.example", "80")).reply).toBe(`hello ${api} 80`);
    expect((await probe("mc--everything", "resolve", "blocked.test.example")).error).toBe("ENOTFOUND");
    expect((await probe("mc--everything", "tcp", blocked, "80")).error).toBe("ECONNREFUSED");
    expect((await probe("mc", "tcp", api, "80")).reply).toBeUndefined();
  }, 60_000);

  it("shows the server and its sandbox with forage-ctl mcp", async () => {
    const shown = JSON.parse((await host.run(["mcp", "mc", "--json"])).stdout) as { servers: unknown[] };
    expect(shown.servers).toEqual([
      expect.objectContaining({
        name: "everything",
        url: null,
        command: ["node", "/workspace/everything/index.js", "stdio"],
        sandbox: "mc--everything",
        sandboxStatus: "running",
        env: { API_TOKEN: "everything-token" },
      }),
    ]);
    const text = (await host.run(["mcp", "mc"])).stdout;
    expect(text).toContain("sandbox        mc--everything (running)");
    expect(text).not.toContain(token);
  }, 60_000);

  it("stops, starts and resets the server's sandbox with the agent's (and refuses to alone); the server answers again after each", async () => {
    const statuses = async (): Promise<string[]> =>
      (JSON.parse((await host.run(["ps", "--json"])).stdout) as { name: string; status: string }[]).map(
        (each) => `${each.name} ${each.status}`,
      );
    const alone = await host.run(["stop", "mc--everything"]);
    expect(alone.exitCode).toBe(64);
    expect(alone.stderr).toContain("forage-ctl stop mc");
    const stop = await host.run(["stop", "mc", "-t", "1"]);
    expect(stop.exitCode, stop.stderr).toBe(0);
    expect(await statuses()).toEqual(["mc stopped", "mc--everything stopped"]);
    const start = await host.run(["start", "mc"]);
    expect(start.exitCode, start.stderr).toBe(0);
    expect(await statuses()).toEqual(["mc running", "mc--everything running"]);
    await waitForProxy(host, ["mc"]);
    expect((await call("echo", { message: "after start" })).text).toBe("Echo: after start");
    const reset = await host.run(["reset", "mc"]);
    expect(reset.exitCode, reset.stderr).toBe(0);
    await waitForProxy(host, ["mc"]);
    // Its secrets copied again with the fresh root: the server still has its variable.
    expect((await call("get-env")).text).toContain('"API_TOKEN": "[forage-redacted');
  }, 180_000);

  it("leaves nothing behind when a server's sandbox cannot be made, and says which server", async () => {
    const up = await host.run(["up", "lost", "-t", "broken-tools", "-w", host.workspace("lost")]);
    expect(up.exitCode).toBe(64);
    expect(up.stderr).toContain("MCP server lost's sandbox (from template srv): /nonexistent/forage-mcp");
    const names = (JSON.parse((await host.run(["ps", "--json"])).stdout) as { name: string }[]).map((s) => s.name);
    expect(names).toEqual(["mc", "mc--everything"]);
  }, 90_000);

  it("keeps the server's sandbox while the agent's is there, and removes it with it", async () => {
    const alone = await host.run(["down", "mc--everything"]);
    expect(alone.exitCode).toBe(64);
    expect(alone.stderr).toContain('runs MCP server everything of sandbox "mc"');
    const down = await host.run(["down", "mc"]);
    expect(down.exitCode, down.stderr).toBe(0);
    expect(JSON.parse((await host.run(["ps", "--json"])).stdout)).toEqual([]);
    expect(existsSync(join(host.env.FORAGE_SECRETS_DIR ?? "", "mc--everything"))).toBe(false);
  }, 90_000);
});
