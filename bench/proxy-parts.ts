// One part of the proxy benchmark in its own process (so the load generator, the proxy and the
// upstream do not share an event loop): `upstream` starts the loopback HTTPS test API;
// `proxy <port> <caFile>` starts the real proxy handler in front of it. Each prints one JSON line
// with what the benchmark needs, then serves until killed.
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { Agent, request } from "node:https";
import type { AddressInfo } from "node:net";
import { ProxyFixture } from "../test/support/proxy-fixture.js";
import { TestUpstream } from "../test/support/test-upstream.js";

const [mode, port, caFile] = process.argv.slice(2);
if (mode === "upstream") {
  const upstream = new TestUpstream();
  upstream.record = false;
  await upstream.start();
  process.stdout.write(`${JSON.stringify({ port: upstream.port, caFile: upstream.caFile })}\n`);
  process.once("SIGTERM", () => void upstream.stop().then(() => process.exit(0)));
} else if (mode === "proxy" && port !== undefined && caFile !== undefined) {
  const proxy = new ProxyFixture({ port: Number(port), caFile }, { requests: 1_000_000_000, tokens: null, windowMs: 60_000 });
  await proxy.setKeys({ anthropic: "sk-bench-key" });
  proxy.addAgent("claude", "proxy", "anthropic", { provider: "anthropic", header: "x-api-key", value: "{key}" });
  await proxy.start();
  process.stdout.write(`${JSON.stringify({ port: proxy.port })}\n`);
  process.once("SIGTERM", () => void proxy.stop().then(() => process.exit(0)));
} else if (mode === "bare" && port !== undefined && caFile !== undefined) {
  const server = bareForwarder(Number(port), readFileSync(caFile, "utf8"));
  server.listen(0, "127.0.0.1", () => process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`));
  process.once("SIGTERM", () => process.exit(0));
} else {
  process.stderr.write("usage: proxy-parts upstream | proxy <upstream port> <ca file> | bare <upstream port> <ca file>\n");
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
    const out = request({ host: "localhost", port: upstreamPort, method: req.method, path: (req.url ?? "/").replace(/^\/claude/, ""), headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(out);
  });
}
