import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** One request as the test upstream received it. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A real HTTPS API for the proxy's tests, on loopback, with a certificate from a test CA made
 * here (the proxy is told to trust `caFile`). It records every request and answers:
 * - `/sse`: two server-sent events, the second only after `releaseStream()`;
 * - `/usage`: JSON reporting `tokens` tokens of usage (the Anthropic shape), after `delayMs`;
 * - `/big`: `bytes` bytes;
 * - `/reflect`: a careless API that echoes the request's credentials (see `reflect`);
 * - anything else: 200 with the request echoed as JSON.
 */
export class TestUpstream {
  readonly received: ReceivedRequest[] = [];
  private readonly dir = mkdtempSync(join(tmpdir(), "forage-upstream-"));
  readonly caFile = join(this.dir, "ca.pem");
  private server: Server | undefined;
  private release: (() => void)[] = [];
  port = 0;
  /** Off for load (benchmarks): requests are answered but not kept. */
  record = true;
  /** How long an idle kept-alive connection stays open (Node's default: 5 s); set before start. */
  keepAliveMs: number | undefined;

  constructor() {
    const openssl = (...args: string[]): void => void execFileSync("openssl", args, { cwd: this.dir, stdio: "ignore" });
    openssl(
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      "ca.key",
      "-out",
      "ca.pem",
      "-days",
      "2",
      "-subj",
      "/CN=forage test CA",
    );
    openssl(
      "req",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      "server.key",
      "-out",
      "server.csr",
      "-subj",
      "/CN=localhost",
    );
    writeFileSync(join(this.dir, "san.ext"), "subjectAltName=DNS:localhost,IP:127.0.0.1\n");
    openssl(
      "x509",
      "-req",
      "-in",
      "server.csr",
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      "server.pem",
      "-days",
      "2",
      "-extfile",
      "san.ext",
    );
  }

  async start(): Promise<void> {
    this.server = createServer(
      { key: readFileSync(join(this.dir, "server.key")), cert: readFileSync(join(this.dir, "server.pem")) },
      (req, res) => void this.serve(req, res),
    );
    if (this.keepAliveMs !== undefined) this.server.keepAliveTimeout = this.keepAliveMs;
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Paths (by prefix) a test answers itself, e.g. a token endpoint (see test-login-provider.ts). */
  private readonly routes = new Map<string, (received: ReceivedRequest, res: ServerResponse) => void>();

  /** Answers requests whose path starts with `prefix` with `handler` (the body already read). */
  route(prefix: string, handler: (received: ReceivedRequest, res: ServerResponse) => void): void {
    this.routes.set(prefix, handler);
  }

  /** Lets every stream waiting on `/sse` send its second event and end. */
  releaseStream(): void {
    for (const release of this.release.splice(0)) release();
  }

  /** The requests received for a path prefix. */
  requestsTo(prefix: string): ReceivedRequest[] {
    return this.received.filter((request) => request.path.startsWith(prefix));
  }

  async stop(): Promise<void> {
    this.releaseStream();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server === undefined ? resolve() : this.server.close(() => resolve())));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const received: ReceivedRequest = {
      method: req.method ?? "",
      path: req.url ?? "",
      headers: req.headers,
      body: Buffer.concat(chunks).toString(),
    };
    if (this.record) this.received.push(received);
    const url = new URL(req.url ?? "/", "https://localhost");
    const route = [...this.routes].find(([prefix]) => url.pathname.startsWith(prefix));
    if (route !== undefined) {
      route[1](received, res);
    } else if (url.pathname.endsWith("/sse")) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.write('event: message_start\ndata: {"usage":{"input_tokens":7}}\n\n');
      await new Promise<void>((resolve) => this.release.push(resolve));
      res.end('event: message_delta\ndata: {"usage":{"output_tokens":5}}\n\n');
    } else if (url.pathname.endsWith("/reflect")) {
      await reflect(received, res, url.searchParams.get("stream") !== null);
    } else if (url.pathname.endsWith("/usage")) {
      await new Promise((resolve) => setTimeout(resolve, Number(url.searchParams.get("delayMs") ?? 0)));
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(
          JSON.stringify({ usage: { input_tokens: Number(url.searchParams.get("tokens") ?? 0), output_tokens: 0 } }),
        );
    } else if (url.pathname.endsWith("/big")) {
      res
        .writeHead(200, { "content-type": "application/octet-stream" })
        .end(Buffer.alloc(Number(url.searchParams.get("bytes") ?? 0), 120));
    } else {
      res
        .writeHead(200, {
          "content-type": "application/json",
          connection: "x-upstream-private",
          "x-upstream-private": "hop",
        })
        .end(JSON.stringify(received));
    }
  }
}

/** Header values that carry keys, as the upstream received them. */
function credentials(received: ReceivedRequest): string[] {
  const values = ["authorization", "x-api-key", "x-goog-api-key", "api-key"].map((name) => received.headers[name]);
  return values
    .filter((value): value is string => typeof value === "string")
    .map((value) => value.replace(/^Bearer /, ""));
}

/**
 * Answers 404 the way careless APIs do: the URL in `Location`, the credentials in `Set-Cookie`,
 * a custom header and `Basic` base64, and the request (URL and headers) quoted in the body. With
 * `stream`, the body goes out as an event stream three bytes per write, so a key spans writes.
 */
async function reflect(received: ReceivedRequest, res: ServerResponse, stream: boolean): Promise<void> {
  const keys = credentials(received);
  const body = JSON.stringify({ error: `not found: ${received.path}`, sent: keys, headers: received.headers });
  res.writeHead(404, {
    location: `https://upstream.test${received.path.replace("/reflect", "/reflect/")}`,
    "set-cookie": `session=${keys.join(",")}; Path=/`,
    "x-echo": keys.join(","),
    "x-basic": `Basic ${Buffer.from(`user:${keys[0] ?? ""}`).toString("base64")}`,
    "content-type": stream ? "text/event-stream" : "application/json",
    ...(stream ? {} : { "content-length": Buffer.byteLength(body) }),
  });
  if (!stream) return void res.end(body);
  const text = `data: ${body}\n\n`;
  for (let index = 0; index < text.length; index += 3) {
    res.write(text.slice(index, index + 3));
    // Each write its own chunk on the wire.
    await new Promise((resolve) => setImmediate(resolve));
  }
  res.end();
}
