// API proxy benchmark: `npm run bench`. Latency (p50, p99) and throughput of small requests to a
// loopback HTTPS upstream, through the proxy (sandbox → proxy over HTTP, proxy → upstream over
// kept-alive HTTPS, key injected, audit line written) against the same client sent straight to
// the upstream over kept-alive HTTPS, at 1, 10 and 100 concurrent connections. A bare forwarder
// (a pipe, nothing else) prices the extra process hop itself. Upstream, proxies and load run in
// separate processes; the three paths alternate round by round to cancel drift.
// Targets (issue 5): added p50 < 1 ms, added p99 < 5 ms, throughput ≥ 80 % of direct. First, one
// sandbox's latency while another floods the proxy, with and without the per-sandbox gate
// (`--fairness-only` stops there).
import { readFileSync } from "node:fs";
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { median, startPart } from "./bench-process.js";

const roundMs = 2500;

const rounds = 3;

interface Round {
  p50: number;
  p99: number;
  perSecond: number;
}

type Send = () => Promise<void>;

function sender(kind: "direct" | "proxy", port: number, ca: string, concurrency: number): Send {
  const agent =
    kind === "direct"
      ? new HttpsAgent({ keepAlive: true, maxSockets: concurrency, ca })
      : new HttpAgent({ keepAlive: true, maxSockets: concurrency });
  const path = kind === "direct" ? "/v1/usage" : "/claude/v1/usage";
  const send = kind === "direct" ? httpsRequest : httpRequest;
  return () =>
    new Promise<void>((resolve, reject) => {
      const req = send(
        {
          host: kind === "direct" ? "localhost" : "127.0.0.1",
          port,
          path,
          method: "POST",
          agent,
          headers: { "content-type": "application/json" },
        },
        (res: IncomingMessage) => {
          res.on("data", () => undefined);
          res.on("end", () => (res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
        },
      );
      req.on("error", reject);
      req.end('{"model":"bench","max_tokens":1}');
    });
}

async function measure(send: Send, concurrency: number): Promise<Round> {
  const latencies: number[] = [];
  const end = performance.now() + roundMs;
  const loop = async (): Promise<void> => {
    while (performance.now() < end) {
      const start = performance.now();
      await send();
      latencies.push(performance.now() - start);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, loop));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number): number =>
    latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? Number.NaN;
  return { p50: at(0.5), p99: at(0.99), perSecond: latencies.length / elapsed };
}

/**
 * One sandbox's latency (1 connection) while another floods the same proxy (200 connections from
 * its own process), with the per-sandbox gate and without it (as the proxy was before it).
 */
async function fairness(port: number, caFile: string, ca: string): Promise<void> {
  process.stdout.write(
    `Fairness: a quiet sandbox (1 connection) while another floods with 200, ${rounds} alternating rounds of ${roundMs / 1000} s (medians)\n`,
  );
  const results: Record<string, Round[]> = { alone: [], unfair: [], fair: [] };
  const proxies = {
    fair: await startPart(["fair", String(port), caFile]),
    unfair: await startPart(["unfair", String(port), caFile]),
  };
  try {
    for (let round = 0; round < rounds; round += 1) {
      results.alone?.push(await measure(sender("proxy", proxies.fair.info.port as number, ca, 1), 1));
      for (const kind of ["unfair", "fair"] as const) {
        const flooder = await startPart(["flood", String(proxies[kind].info.loud), "200"]);
        await measure(sender("proxy", proxies[kind].info.port as number, ca, 1), 1).then((r) => results[kind]?.push(r));
        flooder.child.kill("SIGTERM");
      }
    }
  } finally {
    for (const part of Object.values(proxies)) part.child.kill("SIGTERM");
  }
  for (const [kind, list] of Object.entries(results)) {
    const of = (field: keyof Round): number => median(list.map((r) => r[field]));
    process.stdout.write(
      `  ${kind.padEnd(8)} quiet p50 ${of("p50").toFixed(2)} ms, p99 ${of("p99").toFixed(2)} ms, ${of("perSecond").toFixed(0)} req/s\n`,
    );
  }
}

const upstream = await startPart(["upstream"]);
const port = upstream.info.port as number;
const ca = readFileSync(upstream.info.caFile as string, "utf8");
const proxy = await startPart(["proxy", String(port), upstream.info.caFile as string]);
const bare = await startPart(["bare", String(port), upstream.info.caFile as string]);
const paths = { direct: port, bare: bare.info.port as number, proxy: proxy.info.port as number };
type Path = keyof typeof paths;
try {
  await fairness(port, upstream.info.caFile as string, ca);
  const fairnessOnly = process.argv.includes("--fairness-only");
  if (!fairnessOnly)
    process.stdout.write(
      `API proxy vs direct and vs a bare forwarder, loopback HTTPS upstream, ${rounds} alternating rounds of ${roundMs / 1000} s (medians)\n`,
    );
  if (!fairnessOnly)
    process.stdout.write(
      `  ${"conns".padEnd(6)}${"p50 / p99 ms: direct".padEnd(24)}${"bare hop".padEnd(16)}${"proxy".padEnd(16)}${"added vs direct".padEnd(20)}${"vs bare".padEnd(18)}req/s direct, bare, proxy (proxy/direct)\n`,
    );
  for (const concurrency of fairnessOnly ? [] : [1, 10, 100]) {
    const senders = Object.fromEntries(
      (Object.keys(paths) as Path[]).map((path) => [
        path,
        sender(path === "direct" ? "direct" : "proxy", paths[path], ca, concurrency),
      ]),
    ) as Record<Path, Send>;
    const results: Record<Path, Round[]> = { direct: [], bare: [], proxy: [] };
    for (const path of Object.keys(paths) as Path[]) await measure(senders[path], concurrency);
    for (let round = 0; round < rounds; round += 1)
      for (const path of Object.keys(paths) as Path[]) results[path].push(await measure(senders[path], concurrency));
    const of = (path: Path, field: keyof Round): number => median(results[path].map((r) => r[field]));
    const pair = (path: Path): string => `${of(path, "p50").toFixed(2)} / ${of(path, "p99").toFixed(2)}`;
    const added = (base: Path): string =>
      `+${(of("proxy", "p50") - of(base, "p50")).toFixed(2)} / +${(of("proxy", "p99") - of(base, "p99")).toFixed(2)}`;
    const rates = (Object.keys(paths) as Path[]).map((path) => of(path, "perSecond").toFixed(0)).join(", ");
    const ratio = ((of("proxy", "perSecond") / of("direct", "perSecond")) * 100).toFixed(1);
    process.stdout.write(
      `  ${String(concurrency).padEnd(6)}${pair("direct").padEnd(24)}${pair("bare").padEnd(16)}${pair("proxy").padEnd(16)}${added("direct").padEnd(20)}${added("bare").padEnd(18)}${rates} (${ratio} %)\n`,
    );
  }
} finally {
  for (const part of [proxy, bare, upstream]) part.child.kill("SIGTERM");
}
