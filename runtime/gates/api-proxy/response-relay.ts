import type { IncomingMessage, ServerResponse } from "node:http";
import type { Readable, Transform } from "node:stream";
import { bodyDecoding, decodedLimit, describesEncodedBody } from "./content-decoding.js";
import { headerPairs, responseHeaders } from "./forwarded-headers.js";
import { redactorFor, type ChunkRedactor, type KeyRedactor } from "../shared/key-redactor.js";
import { upstreamFailed, type Exchange, type ProxyServices } from "./proxy-exchange.js";

/**
 * Relays an upstream's answer to the sandbox: headers and body with every form of a key the
 * request carried masked (an upstream that echoes the key in a Location, a cookie, an error page
 * must not hand it over), streamed as it arrives, its tokens counted as they pass. A compressed
 * body is decoded and relayed decoded, without its Content-Encoding and Content-Length: the key and
 * the usage are searched in what the agent will read, the link to the sandbox is local (nothing to
 * save by compressing again), and re-encoding would cost the proxy a compressor per answer. A body
 * in a coding the proxy cannot decode is refused (502) instead of relayed unread; one that fails to
 * decode, or decodes past `maxDecodedBytes`, is cut off where it failed.
 */
export function relayResponse(
  incoming: IncomingMessage,
  res: ServerResponse,
  services: ProxyServices,
  exchange: Exchange,
): void {
  if (exchange.settled || res.headersSent || res.destroyed) return void incoming.destroy();
  const pairs = headerPairs(incoming.rawHeaders);
  const decoding = bodyDecoding(pairs);
  if ("refusal" in decoding) {
    incoming.destroy();
    exchange.record.detail = `the upstream's answer was refused: ${decoding.refusal}`;
    return exchange.answer(
      "encoding",
      `the agent's API answered in a form the proxy cannot search for keys: ${decoding.refusal}; the proxy asked it for accept-encoding: identity`,
    );
  }
  const decoded = decoding.decoders.length > 0;
  const redactor = redactorFor(exchange.sentKeys);
  const found = (count: number): void => void (exchange.record.redacted = (exchange.record.redacted ?? 0) + count);
  // Node reads header bytes as latin1, one character per byte, as the redactor expects.
  const headers = responseHeaders(pairs)
    .filter(([name]) => !(decoded && describesEncodedBody(name)))
    .map(([name, value]): [string, string] => {
      const { text, count } = redactor.redact(value);
      if (count > 0) found(count);
      return [name, text];
    });
  try {
    res.writeHead(incoming.statusCode ?? 502, headers.flat());
  } catch (error) {
    incoming.destroy();
    exchange.record.detail = `the upstream's answer cannot be relayed: ${(error as Error).message}`;
    return exchange.answer("upstream", upstreamFailed);
  }
  exchange.settled = true;
  services.counters.forwarded += 1;
  // An event stream's headers go out at once (the first event may be a while); others ride with the body.
  if (String(incoming.headers["content-type"] ?? "").startsWith("text/event-stream")) res.flushHeaders();
  relayBody(incoming, decoding.decoders, redactor, found, res, services, exchange);
}

/** Streams the body through its decoders and the redactor to the sandbox; any failure cuts the answer off. */
function relayBody(
  incoming: IncomingMessage,
  decoders: readonly (() => Transform)[],
  redactor: KeyRedactor,
  found: (count: number) => void,
  res: ServerResponse,
  services: ProxyServices,
  exchange: Exchange,
): void {
  const received = (chunk: Buffer): void => {
    exchange.record.responseBytes += chunk.length;
    services.counters.responseBytes += chunk.length;
  };
  let charged = 0;
  const read = (chunk: Buffer): void => {
    exchange.meter.observe(chunk);
    // Charged as they stream, so long answers count before they end (or are cut off).
    const total = exchange.meter.total();
    services.limiter.spend(exchange.route.sandbox, total - charged, Date.now());
    charged = total;
  };
  if (decoders.length === 0) return relayPlain(incoming, redactor.chunks(found), { received, read }, res, exchange);
  incoming.on("data", received);
  // A compressed body is cut off past a size: a small one can decode to gigabytes.
  const decoding = [...decoders.map((make) => make()), decodedLimit()];
  (decoding.at(-1) as Transform).on("data", read);
  const stages = [incoming, ...decoding, ...(redactor.active ? [redactor.stream(found)] : [])];
  // Any failure (a body that does not decode) cuts the answer off: never a part relayed unread.
  // (Not stream.pipeline: in Node 20 it makes an AbortSignal and a DOMException per answer, ~7 % of the proxy's time.)
  for (const stage of stages) stage.on("error", (error: Error) => cutOff(error, res, exchange));
  stages
    .slice(1)
    .reduce<Readable>((from, to) => from.pipe(to as Transform), incoming)
    .pipe(res);
  // A sandbox gone before the end: the decoders are freed now (the upstream request is destroyed in forward).
  res.once("close", () => {
    if (!res.writableFinished) for (const stage of stages) stage.destroy();
  });
}

/**
 * The common case, a body in no coding: each chunk counted, read, redacted and written as it comes,
 * with no stream stage between (a Transform and the pipes around it cost more than the rest of a
 * small answer's relay). The upstream is paused while the sandbox does not read.
 */
function relayPlain(
  incoming: IncomingMessage,
  redactor: ChunkRedactor,
  hear: { received: (chunk: Buffer) => void; read: (chunk: Buffer) => void },
  res: ServerResponse,
  exchange: Exchange,
): void {
  const resume = (): void => void incoming.resume();
  incoming.on("data", (chunk: Buffer) => {
    hear.received(chunk);
    hear.read(chunk);
    const out = redactor.push(chunk);
    if (out.length > 0 && !res.write(out)) {
      incoming.pause();
      res.once("drain", resume);
    }
  });
  incoming.on("end", () => {
    const rest = redactor.end();
    if (rest.length > 0) res.end(rest);
    else res.end();
  });
  incoming.on("error", (error: Error) => cutOff(error, res, exchange));
  res.once("close", () => {
    if (!res.writableFinished) incoming.destroy();
  });
}

function cutOff(error: Error, res: ServerResponse, exchange: Exchange): void {
  exchange.record.detail ??= `the upstream's answer was cut off: ${error.message}`;
  res.destroy();
}
