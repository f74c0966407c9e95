import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { McpSandboxRoute } from "../../runtime/gates/mcp-gate/mcp-route.js";
import type { ToolPolicy } from "../../runtime/gates/mcp-gate/tool-policy.js";

/** One tool call the server ran: its name, arguments, and the headers of the HTTP request it came in. */
export interface RanCall {
  tool: string;
  arguments: Record<string, unknown>;
  headers: IncomingHttpHeaders;
}

/**
 * A real MCP server (the MCP TypeScript SDK's McpServer and Streamable HTTP transport, with
 * sessions, answering in event streams as the SDK does by default) on a loopback port, with an
 * issue tracker's kind of tools. `calls` records every tool it ran and the headers it got them
 * with; `echo_headers` answers with the Authorization header it was sent (a server that echoes its
 * credential, as some error pages do).
 */
export class TestMcpServer {
  readonly calls: RanCall[] = [];
  /** Every HTTP request's method, headers and body (parsed), in order. */
  readonly requests: { method: string; headers: IncomingHttpHeaders; body?: unknown }[] = [];
  private readonly sessions = new Map<string, StreamableHTTPServerTransport>();
  private server: Server | undefined;
  port = 0;

  get url(): URL {
    return new URL(`http://127.0.0.1:${this.port}/mcp`);
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const request: (typeof this.requests)[number] = { method: req.method ?? "", headers: req.headers };
      this.requests.push(request);
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const body = chunks.length === 0 ? undefined : (JSON.parse(Buffer.concat(chunks).toString()) as unknown);
        request.body = body;
        void this.serve(req, res, body);
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  private async serve(
    req: Parameters<StreamableHTTPServerTransport["handleRequest"]>[0],
    res: Parameters<StreamableHTTPServerTransport["handleRequest"]>[1],
    body: unknown,
  ): Promise<void> {
    const id = req.headers["mcp-session-id"];
    let transport = typeof id === "string" ? this.sessions.get(id) : undefined;
    if (transport === undefined && req.method === "POST" && isInitializeRequest(body)) {
      const made = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (session) => void this.sessions.set(session, made),
      });
      made.onclose = () => void (made.sessionId !== undefined && this.sessions.delete(made.sessionId));
      await this.tools().connect(made);
      transport = made;
    }
    if (transport === undefined) {
      res
        .writeHead(404, { "content-type": "application/json" })
        .end('{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"no such session"}}');
      return;
    }
    await transport.handleRequest(req, res, body);
  }

  /** The tools, each recording its call with the headers of the request that carried it (the test calls one at a time). */
  private tools(): McpServer {
    const server = new McpServer({ name: "tracker", version: "1.0.0" });
    const ran = (tool: string, args: Record<string, unknown>): void =>
      void this.calls.push({ tool, arguments: args, headers: this.requests.at(-1)?.headers ?? {} });
    server.registerTool("get_issue", { description: "Reads an issue", inputSchema: { id: z.number() } }, (args) => {
      ran("get_issue", args);
      return { content: [{ type: "text", text: `issue ${args.id}: the build is red` }] };
    });
    server.registerTool("list_issues", { description: "Lists issues" }, () => {
      ran("list_issues", {});
      return { content: [{ type: "text", text: "1, 2, 3" }] };
    });
    server.registerTool(
      "create_issue",
      { description: "Opens an issue", inputSchema: { title: z.string() } },
      (args) => {
        ran("create_issue", args);
        return { content: [{ type: "text", text: `opened "${args.title}"` }] };
      },
    );
    server.registerTool(
      "delete_repo",
      { description: "Deletes a repository", inputSchema: { name: z.string() } },
      (args) => {
        ran("delete_repo", args);
        return { content: [{ type: "text", text: `deleted ${args.name}` }] };
      },
    );
    server.registerTool(
      "echo_headers",
      {
        description: "Says what credential it got, after the text it is given",
        inputSchema: { before: z.string().optional() },
      },
      (args) => {
        ran("echo_headers", args);
        const auth = this.requests.at(-1)?.headers.authorization ?? "none";
        return { content: [{ type: "text", text: `${args.before ?? ""}you sent authorization: ${auth}` }] };
      },
    );
    return server;
  }

  /** What the MCP gate serves a sandbox of this server, as "tracker", its token sent as a bearer token. */
  gateRoute(sandbox: string, token: string, policy: ToolPolicy): McpSandboxRoute {
    const headers = { authorization: `Bearer ${token}` };
    const server = { name: "tracker", url: this.url, headers, secrets: [token, headers.authorization], policy };
    return { sandbox, servers: new Map([["tracker", server]]) };
  }

  async stop(): Promise<void> {
    for (const transport of this.sessions.values()) await transport.close();
    await new Promise<void>((resolve) => {
      this.server?.closeAllConnections();
      this.server?.close(() => resolve());
    });
  }
}
