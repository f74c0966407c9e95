import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RuntimeContext } from "../../../../runtime/core/context.js";
import { mcpGate, type McpServerLauncher } from "../../../../runtime/gates/mcp-gate/mcp-gate-service.js";
import { writeMetadata } from "../../../../runtime/state/metadata-store.js";
import type { SandboxMetadata } from "../../../../runtime/state/metadata.js";
import { configContext } from "../../../support/config-context.js";
import { sandboxMetadata } from "../../../support/sandbox-metadata.js";
import { sandboxSecretsPath } from "../../../../runtime/core/paths.js";
import { serverLauncher } from "../../../../runtime/sandbox/mcp-server-sandboxes.js";

/*
 * The MCP gate as the daemon serves it, for a template's stdio server: the sandbox's metadata and
 * template read per request, the server started once through the launcher it is handed (here the
 * real launcher script, running a small server of the test's own on this host), the server's
 * secrets read from the host's files and masked, and the open requests a sandbox may have bounded.
 */
const dir = mkdtempSync(join(tmpdir(), "forage-mcp-service-"));
const token = "tok-service-0b7e29c4f18d53a6";
const launcherScript = readFileSync(join(import.meta.dirname, "../../../../runtime/assets/forage-mcp-server"), "utf8");
const rotated = "tok-service-rotated-6a2f90d1c4";
let envDir = "";
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A stdio server that answers pings with its TOKEN and the requests it was told are cancelled, and never answers `wait`. */
const server = [
  "const cancelled = [];",
  "require('readline').createInterface({ input: process.stdin }).on('line', (line) => {",
  "  const m = JSON.parse(line);",
  "  if (m.method === 'notifications/cancelled') cancelled.push(m.params.requestId);",
  "  if (m.method === 'ping') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { token: process.env.TOKEN, pid: process.pid, cancelled } }) + '\\n');",
  "});",
].join("\n");

let context: RuntimeContext;
let agent: SandboxMetadata;
let gate: Server;
let port = 0;
const launched: { sandbox: string; server: string }[] = [];

beforeAll(async () => {
  // The host's file holds a token rotated since up; the server's sandbox, the one copied then.
  writeFileSync(join(dir, "token"), `${rotated}\n`);
  context = await configContext(
    dir,
    `user: nobody
secrets: { tok: ${join(dir, "token")} }
templates:
  srv: {}
  dev:
    mcp:
      servers:
        small: { command: [node, server.js], template: srv, env: { TOKEN: tok }, tools: { allow: ["*"] } }
`,
  );
  agent = sandboxMetadata({ name: "fix-42", template: "dev", slot: 42, hostPath: dir });
  await writeMetadata(context.paths, agent);
  envDir = join(sandboxSecretsPath(context.paths, "fix-42--small"), "_mcp-env");
  mkdirSync(envDir, { recursive: true });
  writeFileSync(join(envDir, "TOKEN"), `${token}\n\n`);
  // The server runs on this host (no sandbox here), from the copies where its sandbox would see them.
  const launch: McpServerLauncher = {
    argv: async (sandbox, each) => {
      launched.push({ sandbox: sandbox.name, server: each.name });
      const launcher = ["bash", "-c", launcherScript, "forage-mcp-server", envDir, join(dir, "server.log")];
      return [...launcher, process.execPath, "-e", server];
    },
    secretValues: serverLauncher(() => context).secretValues,
  };
  const serve = mcpGate({
    settings: () => context.settings,
    paths: context.paths,
    ask: async () => ({ decision: "deny" }),
    log: () => undefined,
    launch,
  });
  gate = createServer((req, res) => serve({ sandbox: "fix-42" }, req, res));
  await new Promise<void>((resolve) => gate.listen(0, "127.0.0.1", resolve));
  port = (gate.address() as AddressInfo).port;
});

afterAll(async () => {
  gate.closeAllConnections();
  await new Promise<void>((resolve) => gate.close(() => resolve()));
});

const post = (id: number, method: string, signal?: AbortSignal): Promise<Response> =>
  fetch(`http://127.0.0.1:${port}/_mcp/small`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id, method }),
    ...(signal === undefined ? {} : { signal }),
  });

describe("the MCP gate service, for a stdio server", () => {
  it("starts the server once through the launcher, for the sandbox and server asked, and masks its secret read from the host's file", async () => {
    const answers = [];
    for (const id of [1, 2])
      answers.push((await (await post(id, "ping")).json()) as { id: number; result: { token: string; pid: number } });
    expect(answers.map((answer) => answer.id)).toEqual([1, 2]);
    // The server had the secret (the launcher gave it), and the sandbox gets it masked.
    expect(answers[0]?.result.token).toMatch(/^\[forage-redacted/);
    expect(JSON.stringify(answers)).not.toContain(token);
    // One process for both: started once.
    expect(answers[0]?.result.pid).toBe(answers[1]?.result.pid);
    expect(launched).toEqual([{ sandbox: "fix-42", server: "small" }]);
  });

  it("masks every value the server's secret has: its sandbox's copy (trimmed as the launcher trims it) and the host's file as rotated since", async () => {
    const server = context.settings.templates.find((t) => t.name === "dev")?.mcp.servers[0];
    if (server === undefined) throw new Error("no server in the test's config");
    expect((await serverLauncher(() => context).secretValues(agent, server)).sort()).toEqual([rotated, token].sort());
  });

  it("keeps a sandbox to 16 open requests: the 17th is refused with 429 while the others wait; those the agent leaves are cancelled at the server", async () => {
    const stop = new AbortController();
    const waiting = Array.from({ length: 16 }, (_, i) => post(100 + i, "wait", stop.signal).catch(() => undefined));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const refused = await post(200, "ping");
    expect(refused.status).toBe(429);
    expect(await refused.text()).toContain("has 16 MCP requests open");
    stop.abort();
    await Promise.all(waiting);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Once they are gone, the sandbox is served again, and the server was told each was cancelled.
    const after = await post(201, "ping");
    expect(after.status).toBe(200);
    expect(((await after.json()) as { result: { cancelled: number[] } }).result.cancelled).toHaveLength(16);
  });
});
