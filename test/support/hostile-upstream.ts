import { readFileSync } from "node:fs";
import type { ClientRequest, IncomingHttpHeaders, ServerResponse } from "node:http";
import { request } from "node:https";
import { PassThrough } from "node:stream";
import {
  brotliCompressSync,
  brotliDecompressSync,
  createBrotliCompress,
  createDeflate,
  createGzip,
  deflateSync,
  gunzipSync,
  gzipSync,
  inflateSync,
  type BrotliCompress,
  type Deflate,
  type Gzip,
} from "node:zlib";
import type { ReceivedRequest, TestUpstream } from "./test-upstream.js";

/** Compressors for the codings a hostile upstream uses; "x-custom" is gzip under a name no proxy knows. */
const compressors: Record<string, () => Gzip | Deflate | BrotliCompress> = {
  gzip: () => createGzip(),
  "x-gzip": () => createGzip(),
  deflate: () => createDeflate(),
  br: () => createBrotliCompress(),
  "x-custom": () => createGzip(),
};

/**
 * The encodings of a key an upstream may reflect, by name: every one the proxy is meant to mask.
 *
 * @example encodedKey("sk-1").hex // "736b2d31"
 */
export function encodedKey(key: string) {
  const codes = [...key].map((char) => char.charCodeAt(0));
  const base64 = Buffer.from(`user:${key}`).toString("base64");
  return {
    plain: key,
    upper: key.toUpperCase(),
    hex: Buffer.from(key).toString("hex"),
    hexUpper: Buffer.from(key).toString("hex").toUpperCase(),
    base64,
    base64url: Buffer.from(`xy${key}`).toString("base64url"),
    unicode: codes.map((code) => `\\u${code.toString(16).padStart(4, "0")}`).join(""),
    htmlDecimal: codes.map((code) => `&#${code};`).join(""),
    htmlHex: codes.map((code) => `&#x${code.toString(16)};`).join(""),
    percent: codes.map((code) => `%${code.toString(16).toUpperCase()}`).join(""),
  };
}

/**
 * The names of the encodings of `key` (`encodedKey`) an agent can read in a reply, as they are or
 * JSON-escaped: in its headers, its body, or its body decompressed any way that works, up to three
 * layers deep.
 */
export function leakedEncodings(key: string, headers: unknown, body: Buffer): string[] {
  const texts = [JSON.stringify(headers), body.toString("latin1")];
  let layer = [body];
  for (let depth = 0; depth < 3; depth += 1) {
    layer = layer.flatMap((bytes) =>
      [gunzipSync, inflateSync, brotliDecompressSync].flatMap((decode) => attempt(() => decode(bytes))),
    );
    texts.push(...layer.map((bytes) => bytes.toString("latin1")));
  }
  const readable = texts.join("\n");
  // A form in a JSON body is JSON-escaped again (the \u form's backslashes doubled).
  const spellings = (form: string): string[] => [form, JSON.stringify(form).slice(1, -1)];
  return Object.entries(encodedKey(key)).flatMap(([name, form]) =>
    spellings(form).some((spelling) => readable.includes(spelling)) ? [name] : [],
  );
}

function attempt(decode: () => Buffer): Buffer[] {
  try {
    return [decode()];
  } catch {
    return [];
  }
}

/** An answer as a client reads it, one cut off too. */
export interface Answer {
  /** 0: cut off before its headers. */
  status: number;
  headers: IncomingHttpHeaders;
  bytes: Buffer;
  /** Whether the body arrived to its end (false: cut off). */
  whole: boolean;
}

/** Sends `req` with a body of "{}" and reads its answer as far as it arrives. */
export function readAnswer(req: ClientRequest): Promise<Answer> {
  return new Promise((resolve) => {
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", () => undefined);
      res.on("close", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          bytes: Buffer.concat(chunks),
          whole: res.complete,
        }),
      );
    });
    req.on("error", () => resolve({ status: 0, headers: {}, bytes: Buffer.alloc(0), whole: false }));
    req.end("{}");
  });
}

/** Asks the upstream itself, with `headers` (the key), as the proxy would: what the proxy has to relay. */
export function askDirectly(upstream: TestUpstream, path: string, headers: Record<string, string>): Promise<Answer> {
  return readAnswer(
    request({
      host: "127.0.0.1",
      port: upstream.port,
      method: "POST",
      path,
      ca: readFileSync(upstream.caFile),
      headers,
    }),
  );
}

/** The key the upstream received (x-api-key, or Authorization: Bearer). */
function receivedKey(received: ReceivedRequest): string {
  const value = received.headers["x-api-key"] ?? received.headers.authorization ?? "";
  return String(value).replace(/^Bearer /, "");
}

/**
 * Serves careless and hostile answers on `upstream` under `/v1/hostile/`, each reflecting the key
 * it received in every encoding of `encodedKey` (body and headers):
 * - `echo?coding=gzip,br`: compressed with those codings in that order though the proxy asked for
 *   identity (`via=transfer`: as a `Transfer-Encoding` instead; `label=x`: labelled `x`);
 *   `stream=1`: as an event stream, a few bytes per flushed write, so the key spans writes;
 * - `events?coding=gzip`: an event stream whose second event waits for `release()`;
 * - `usage?coding=gzip&tokens=N`: a JSON answer reporting N tokens (the Anthropic shape);
 * - `echo?coding=gzip&malformed=plain|trailing|truncated`: the echo in a gzip that fails to decode;
 * - `bomb?coding=gzip&mib=N`: a few kilobytes of gzip that decode to N MiB, the key at both ends.
 * With no coding the same answers go out as they are: the honest control.
 */
export function serveHostile(upstream: TestUpstream): { release(): void } {
  const waiting: (() => void)[] = [];
  upstream.route("/v1/hostile/", (received, res) => {
    const url = new URL(received.path, "https://upstream.test");
    const codings = (url.searchParams.get("coding") ?? "").split(",").filter((coding) => coding !== "");
    const label = url.searchParams.get("label") ?? codings.join(", ");
    const via = url.searchParams.get("via") === "transfer" ? "transfer-encoding" : "content-encoding";
    const key = receivedKey(received);
    const headers: Record<string, string> = {
      "x-echo-hex": encodedKey(key).hex,
      "x-echo-b64url": encodedKey(key).base64url,
    };
    if (label !== "") headers[via] = via === "transfer-encoding" ? `${label}, chunked` : label;
    const body = JSON.stringify({
      error: { type: "invalid_request", message: "key rejected", echoes: encodedKey(key) },
    });
    if (url.pathname.endsWith("/events")) return void events(res, headers, codings, key, waiting);
    if (url.pathname.endsWith("/bomb"))
      return void res
        .writeHead(200, { ...headers, "content-type": "application/json" })
        .end(bomb(key, Number(url.searchParams.get("mib"))));
    const malformed = url.searchParams.get("malformed");
    if (malformed !== null)
      return void res
        .writeHead(400, { ...headers, "content-type": "application/json" })
        .end(broken(Buffer.from(body), malformed));
    if (url.pathname.endsWith("/usage")) {
      const usage = compress(
        Buffer.from(
          JSON.stringify({ usage: { input_tokens: Number(url.searchParams.get("tokens")), output_tokens: 0 } }),
        ),
        codings,
      );
      return void res.writeHead(200, { ...headers, "content-type": "application/json" }).end(usage);
    }
    if (url.searchParams.get("stream") !== null)
      return void trickle(res, { ...headers, "content-type": "text/event-stream" }, codings, `data: ${body}\n\n`);
    const encoded = compress(Buffer.from(body), codings);
    // A transfer coding goes chunked (Node frames it): a length would contradict it.
    const length = via === "transfer-encoding" && label !== "" ? {} : { "content-length": String(encoded.length) };
    res.writeHead(400, { ...headers, "content-type": "application/json", ...length }).end(encoded);
  });
  return { release: () => waiting.splice(0).forEach((resume) => resume()) };
}

/**
 * A gzip body that decodes to `mib` MiB and more: the key, `mib` MiB of "0", the key again. Made
 * of gzip members (one gzip text, RFC 1952), so a bomb of any size costs a few kilobytes to make.
 */
function bomb(key: string, mib: number): Buffer {
  const zeros = gzipSync(Buffer.alloc(1024 * 1024, "0"));
  return Buffer.concat([
    gzipSync(`{"echo":"${key}","zeros":"`),
    ...Array.from({ length: mib }, () => zeros),
    gzipSync(`","again":"${key}"}`),
  ]);
}

/** `body` in a gzip that does not decode: `plain` (not gzip at all), `trailing` (after a whole gzip), `truncated` (cut in half). */
function broken(body: Buffer, kind: string): Buffer {
  const whole = gzipSync(body);
  if (kind === "trailing") return Buffer.concat([whole, body]);
  if (kind === "truncated") return whole.subarray(0, whole.length / 2);
  return body;
}

function compress(body: Buffer, codings: readonly string[]): Buffer {
  return codings.reduce(
    (data, coding) =>
      coding === "br" ? brotliCompressSync(data) : coding === "deflate" ? deflateSync(data) : gzipSync(data),
    body,
  );
}

/** A chain of compressors whose writes are each flushed through to the wire. */
function compressing(
  res: ServerResponse,
  codings: readonly string[],
): { write(text: string): Promise<void>; end(): void } {
  const stages = codings.map((coding) => (compressors[coding] as () => Gzip)());
  const head = stages[0] ?? new PassThrough();
  stages
    .slice(1)
    .reduce<NodeJS.ReadableStream>((from, to) => from.pipe(to), head)
    .pipe(res);
  return {
    write: async (text) => {
      head.write(text);
      for (const stage of stages) await new Promise<void>((resolve) => stage.flush(() => resolve()));
      await new Promise((resolve) => setImmediate(resolve));
    },
    end: () => head.end(),
  };
}

/** The body as an event stream, three bytes a write, each write flushed. */
async function trickle(
  res: ServerResponse,
  headers: Record<string, string>,
  codings: readonly string[],
  text: string,
): Promise<void> {
  res.writeHead(400, headers);
  const out = compressing(res, codings);
  for (let index = 0; index < text.length; index += 3) await out.write(text.slice(index, index + 3));
  out.end();
}

/** Two events, the first with the key in it; the second only once released. */
async function events(
  res: ServerResponse,
  headers: Record<string, string>,
  codings: readonly string[],
  key: string,
  waiting: (() => void)[],
): Promise<void> {
  res.writeHead(200, { ...headers, "content-type": "text/event-stream" });
  const out = compressing(res, codings);
  await out.write(`event: first\ndata: {"echo":"${encodedKey(key).hex}"}\n\n`);
  await new Promise<void>((resolve) => waiting.push(resolve));
  await out.write(`event: second\ndata: {"done":true}\n\n`);
  out.end();
}
