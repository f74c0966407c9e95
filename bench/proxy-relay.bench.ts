// API proxy relay benchmark: `npm run bench`. How fast the proxy relays answers it searches for
// the request's key (every answer is searched): a 1 MiB JSON answer, a 16 KiB one, and an event
// stream of 500 text deltas, each shaped like a model's (bench/model-answers.ts), from a loopback
// HTTPS upstream, one request at a time. Baseline: the same client asking the upstream directly,
// in the same process. With FORAGE_BENCH_BEFORE=<an older build's dist/bench/proxy-parts.js> the
// older proxy runs beside this one, in front of the same upstream. Paths alternate round by round
// to cancel drift; each figure is the median of the rounds' medians, [lowest – highest] round.
// Then the redactor alone, in this process (no network: its own cost), against a stream that only
// copies its chunks as text (`--redactor-only`: just that).
import { readFileSync } from "node:fs";
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { dirname, join } from "node:path";
import { Transform } from "node:stream";
import { KeyRedactor } from "../runtime/gates/shared/key-redactor.js";
import { median, startPart } from "./bench-process.js";
import { modelAnswer, modelEvent } from "./model-answers.js";
import { medianMs } from "./run.js";

const roundMs = 2000;
const rounds = 5;
const answers = [
  { name: "JSON, 1 MiB", path: "/v1/answer/json?bytes=1048576" },
  { name: "JSON, 16 KiB", path: "/v1/answer/json?bytes=16384" },
  { name: "SSE, 500 events", path: "/v1/answer/sse?events=500" },
];

interface Round {
  /** Median time to the answer's last byte, ms. */
  ms: number;
  /** Answer bytes per second, MB/s. */
  mbPerSecond: number;
}

type Send = () => Promise<number>;

/** One request to `path` (through a proxy: under /claude), resolving with the bytes of its answer. */
function sender(direct: boolean, port: number, ca: string, path: string): Send {
  const agent = direct
    ? new HttpsAgent({ keepAlive: true, maxSockets: 1, ca })
    : new HttpAgent({ keepAlive: true, maxSockets: 1 });
  const send = direct ? httpsRequest : httpRequest;
  const options = {
    host: direct ? "localhost" : "127.0.0.1",
    port,
    path: direct ? path : `/claude${path}`,
    method: "POST",
    agent,
  };
  return () =>
    new Promise<number>((resolve, reject) => {
      const req = send(options, (res: IncomingMessage) => {
        let bytes = 0;
        res.on("data", (chunk: Buffer) => void (bytes += chunk.length));
        res.on("end", () => (res.statusCode === 200 ? resolve(bytes) : reject(new Error(`status ${res.statusCode}`))));
      });
      req.on("error", reject);
      req.end('{"model":"bench"}');
    });
}

async function measure(send: Send): Promise<Round> {
  const times: number[] = [];
  let bytes = 0;
  const started = performance.now();
  while (performance.now() - started < roundMs) {
    const start = performance.now();
    bytes += await send();
    times.push(performance.now() - start);
  }
  return { ms: median(times), mbPerSecond: bytes / 1e6 / ((performance.now() - started) / 1000) };
}

/** "median [low – high]" of one field over the rounds. */
function spread(list: readonly Round[], field: keyof Round, digits: number): string {
  const values = list.map((round) => round[field]);
  return `${median(values).toFixed(digits)} [${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}]`;
}

/** A redacting stream as some build makes it (a key that is never in the answer, as usual). */
type MakeStream = () => Transform;

/** Writes `chunks` through a new stream and waits for its end. */
async function through(make: MakeStream, chunks: readonly Buffer[]): Promise<void> {
  const stream = make();
  stream.resume();
  const ended = new Promise((resolve) => stream.on("end", resolve));
  for (const chunk of chunks) stream.write(chunk);
  stream.end();
  await ended;
}

/** The redactor's stream alone, this build's and (FORAGE_BENCH_BEFORE) the older one's, against a stream that only copies its text. */
async function redactorAlone(before: string | undefined): Promise<void> {
  const key = ["sk-bench-key"];
  // Baseline: what any stream that reads its chunks as text pays (latin1 out and back in), nothing searched.
  const copy = (): Transform =>
    new Transform({
      transform: (chunk: Buffer, _encoding, done) => done(null, Buffer.from(chunk.toString("latin1"), "latin1")),
    });
  const makers: Record<string, MakeStream> = {
    "text copy": copy,
    after: () => new KeyRedactor(key).stream(() => undefined),
  };
  if (before !== undefined) {
    const older = (await import(join(dirname(before), "../runtime/proxy/key-redactor.js"))) as {
      KeyRedactor: typeof KeyRedactor;
    };
    makers.before = () => new older.KeyRedactor(key).stream(() => undefined);
  }
  const json = Buffer.from(modelAnswer(1024 * 1024));
  const inputs = {
    "JSON, 1 MiB in 16 KiB chunks": Array.from({ length: json.length / 16384 + 1 }, (_, index) =>
      json.subarray(index * 16384, (index + 1) * 16384),
    ),
    "SSE, 500 events, one a chunk": Array.from({ length: 500 }, () => Buffer.from(modelEvent)),
  };
  process.stdout.write(
    `The redactor's stream alone, in-process, ${rounds} alternating rounds of 30 runs: median [lowest–highest round]\n`,
  );
  for (const [name, chunks] of Object.entries(inputs)) {
    const results: Record<string, number[]> = Object.fromEntries(Object.keys(makers).map((maker) => [maker, []]));
    for (let round = 0; round < rounds; round += 1)
      for (const [maker, make] of Object.entries(makers))
        results[maker]?.push(await medianMs(() => through(make, chunks), 30, 5));
    const base = median(results["text copy"] ?? []);
    process.stdout.write(`  ${name}\n`);
    for (const [maker, list] of Object.entries(results)) {
      const figure = `${median(list).toFixed(3)} [${Math.min(...list).toFixed(3)}–${Math.max(...list).toFixed(3)}]`;
      process.stdout.write(
        `    ${maker.padEnd(12)} ${figure.padStart(26)} ms  ×${(median(list) / base).toFixed(1)} the text copy\n`,
      );
    }
  }
}

/** Whole answers through the proxy (this build's, and the older one's) and straight from the upstream. */
async function relayed(before: string | undefined): Promise<void> {
  const upstream = await startPart(["upstream"]);
  const port = upstream.info.port as number;
  const caFile = upstream.info.caFile as string;
  const ca = readFileSync(caFile, "utf8");
  const proxies = {
    after: await startPart(["proxy", String(port), caFile]),
    ...(before === undefined ? {} : { before: await startPart(["proxy", String(port), caFile], before) }),
  };
  const paths: Record<string, number> = {
    direct: port,
    ...Object.fromEntries(Object.entries(proxies).map(([name, part]) => [name, part.info.port as number])),
  };
  try {
    process.stdout.write(
      `API proxy relay (answers searched for the key), 1 connection, ${rounds} alternating rounds of ${roundMs / 1000} s: median [lowest–highest round]\n`,
    );
    for (const answer of answers) {
      const senders = Object.fromEntries(
        Object.entries(paths).map(([name, to]) => [name, sender(name === "direct", to, ca, answer.path)]),
      );
      const results: Record<string, Round[]> = Object.fromEntries(Object.keys(paths).map((name) => [name, []]));
      for (const send of Object.values(senders)) await measure(send);
      for (let round = 0; round < rounds; round += 1)
        for (const [name, send] of Object.entries(senders)) results[name]?.push(await measure(send));
      const direct = median((results.direct ?? []).map((round) => round.mbPerSecond));
      process.stdout.write(`  ${answer.name}\n`);
      for (const [name, list] of Object.entries(results)) {
        const share = ((median(list.map((round) => round.mbPerSecond)) / direct) * 100).toFixed(0);
        process.stdout.write(
          `    ${name.padEnd(7)} ${spread(list, "ms", 2).padStart(22)} ms  ${spread(list, "mbPerSecond", 1).padStart(22)} MB/s  (${share} % of direct)\n`,
        );
      }
    }
  } finally {
    for (const part of [...Object.values(proxies), upstream]) part.child.kill("SIGTERM");
  }
}

if (!process.argv.includes("--redactor-only")) await relayed(process.env.FORAGE_BENCH_BEFORE);
await redactorAlone(process.env.FORAGE_BENCH_BEFORE);
