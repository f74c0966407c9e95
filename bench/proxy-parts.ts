// One part of the proxy benchmark in its own process (so the load generator, the proxy and the
// upstream do not share an event loop): `upstream` starts the loopback HTTPS test API;
// `proxy <port> <caFile>` starts the real proxy handler in front of it; `fair` / `unfair` the same
// with a second sandbox's listener, with and without the per-sandbox gate. Each prints one JSON line
// with what the benchmark needs, then serves until killed.
import { readFileSync } from "node:fs";
import { Agent as HttpAgent, createServer, request as httpRequest, type Server } from "node:http";
import { Agent, request } from "node:https";
import type { AddressInfo } from "node:net";
import { ProxyFixture } from "../test/support/proxy-fixture.js";
import { TestUpstream } from "../test/support/test-upstream.js";
import { SandboxGate } from "../runtime/gates/api-proxy/sandbox-gate.js";
import { serveModelAnswers } from "./model-answers.js";

const [mode, port, caFile] = process.argv.slice(2);
if (mode === "upstream") {
  const upstream = new TestUpstream();
  upstream.record = false;
  // Longer than a path of the bench waits between its rounds (5 s): an upstream closing a kept-alive
  // connection as a request goes out on it fails that request (Node's keep-alive race), and with it the run.
  upstream.keepAliveMs = 60_000;
  serveModelAnswers(upstream);
  await upstream.start();
  process.stdout.write(`${JSON.stringify({ port: upstream.port, caFile: upstream.caFile })}\n`);
  process.once("SIGTERM", () => void upstream.stop().then(() => process.exit(0)));
} else if (mode === "proxy" && port !== undefined && caFile !== undefined) {
  const proxy = new ProxyFixture(
    { port: Number(port), caFile },
    { requests: 1_000_000_000, tokens: null, windowMs: 60_000 },
  );
  await proxy.setKeys({ anthropic: "sk-bench-key" });
  proxy.addAgent("claude", "proxy", "anthropic", { provider: "anthropic", header: "x-api-key", value: "{key}" });
  await proxy.start();
  process.stdout.write(`${JSON.stringify({ port: proxy.port })}\n`);
  process.once("SIGTERM", () => void proxy.stop().then(() => process.exit(0)));
} else if ((mode === "fair" || mode === "unfair") && port !== undefined && caFile !== undefined) {
  // Two sandboxes behind one proxy; "unfair" lifts the per-sandbox gate (the proxy before it had one).
  const proxy = new ProxyFixture(
    { port: Number(port), caFile },
    { requests: 1_000_000_000, tokens: null, windowMs: 60_000 },
  );
  if (mode === "unfair")
    proxy.services.gate = new SandboxGate(() => Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
  await proxy.setKeys({ anthropic: "sk-bench-key" });
  proxy.addAgent("claude", "proxy", "anthropic", { provider: "anthropic", header: "x-api-key", value: "{key}" });
  await proxy.start();
  const loud = await proxy.serveAlso("loud");
  process.stdout.write(`${JSON.stringify({ port: proxy.port, loud })}\n`);
  process.once("SIGTERM", () => void proxy.stop().then(() => process.exit(0)));
} else if (mode === "flood" && port !== undefined && caFile !== undefined) {
  // A sandbox's flood from its own process: `caFile` is here the number of connections.
  flood(Number(port), Number(caFile));
  process.stdout.write("{}\n");
  process.once("SIGTERM", () => process.exit(0));
} else if (mode === "bare" && port !== undefined && caFile !== undefined) {
  const server = bareForwarder(Number(port), readFileSync(caFile, "utf8"));
  server.listen(0, "127.0.0.1", () =>
    process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`),
  );
  process.once("SIGTERM", () => process.exit(0));
} else {
  process.stderr.write(
    "usage: proxy-parts upstream | proxy|fair|unfair|bare <upstream port> <ca file> | flood <proxy port> <connections>\n",
  );
  process.exit(64);
}

/**
 * The least a forwarder can do: pipe the request to the upstream over a kept-alive HTTPS agent
 * and the answer back, with no checks, key, limits or audit. It prices the extra process hop on
 * this machine, so the proxy's own cost can be told apart from it.
 */
function bareForwarder(upstreamPort: number, ca: string): Server {
  const agent = new Agent({ keepAlive: true, maxSockets: 256, ca });
  return createServer({ noDelay: true }, (req, res) => {
    const headers = { "content-type": "application/json", "content-length": req.headers["content-length"] ?? "0" };
    const out = request(
      {
        host: "localhost",
        port: upstreamPort,
        method: req.method,
        path: (req.url ?? "/").replace(/^\/claude/, ""),
        headers,
        agent,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    // Answered as the proxy would (a 502), not a crash of this process.
    out.on("error", () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(out);
  });
}

/** Sends requests on `connections` kept-alive connections, each as soon as the last is answered, forever. */
function flood(proxyPort: number, connections: number): void {
  const agent = new HttpAgent({ keepAlive: true, maxSockets: connections });
  const loop = (): void => {
    const req = httpRequest(
      { host: "127.0.0.1", port: proxyPort, path: "/claude/v1/usage", method: "POST", agent },
      (res) => {
        res.resume();
        res.on("end", loop);
      },
    );
    req.on("error", () => setTimeout(loop, 10));
    req.end("{}");
  };
  for (let index = 0; index < connections; index += 1) loop();
}
