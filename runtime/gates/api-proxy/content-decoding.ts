import { Transform, type TransformCallback } from "node:stream";
import { constants, createBrotliDecompress, createGunzip, createInflate } from "node:zlib";

/**
 * The codings the proxy can undo. Each decoder flushes what it has as it goes, so an event stream
 * arrives event by event, and a body cut short ends where it was cut instead of failing. zstd is
 * not here: Node 20's zlib has no zstd.
 */
const decoders: ReadonlyMap<string, () => Transform> = new Map([
  ["gzip", () => createGunzip({ finishFlush: constants.Z_SYNC_FLUSH })],
  // RFC 9110: "x-gzip" is gzip.
  ["x-gzip", () => createGunzip({ finishFlush: constants.Z_SYNC_FLUSH })],
  // RFC 9110's deflate is zlib-wrapped; a raw deflate body fails to decode and the answer is cut off.
  ["deflate", () => createInflate({ finishFlush: constants.Z_SYNC_FLUSH })],
  ["br", () => createBrotliDecompress({ finishFlush: constants.BROTLI_OPERATION_FLUSH })],
]);

/** More codings than this on one body are refused: each is a decoder per response. */
const maxCodings = 3;

/** How a response body is to be decoded: its decoders in order (none: as it is), or why it cannot be. */
export type BodyDecoding = { decoders: (() => Transform)[] } | { refusal: string };

/**
 * The decoders that turn an upstream's body back into what the key is searched in, from its
 * `Content-Encoding` and `Transfer-Encoding` (Node's parser undoes `chunked` only: a `gzip` transfer
 * coding reaches the proxy compressed, and the header, hop-by-hop, is not passed on). Codings were
 * applied in the order listed, content codings first, so they are undone from the last. A coding
 * the proxy cannot undo is refused: the proxy asks for `identity`, and a body it cannot read could
 * carry the key past it.
 *
 * @example bodyDecoding([["content-encoding", "gzip"]]) // { decoders: [gunzip] }
 */
export function bodyDecoding(pairs: readonly [string, string][]): BodyDecoding {
  const codings = [
    ...codingsOf(pairs, "content-encoding"),
    ...codingsOf(pairs, "transfer-encoding").filter((coding) => coding !== "chunked"),
  ];
  if (codings.length > maxCodings)
    return { refusal: `the body has ${codings.length} codings, more than the ${maxCodings} the proxy undoes` };
  const unknown = codings.filter((coding) => !decoders.has(coding));
  // The coding's name is the upstream's text: not repeated to the sandbox.
  if (unknown.length > 0)
    return {
      refusal: `the body is in a coding the proxy cannot decode to search it for keys (it decodes ${[...decoders.keys()].join(", ")})`,
    };
  return { decoders: codings.reverse().map((coding) => decoders.get(coding) as () => Transform) };
}

/** A header's comma-separated codings, lower-cased, without `identity` (no coding at all). */
function codingsOf(pairs: readonly [string, string][], header: string): string[] {
  return pairs
    .filter(([name]) => name === header)
    .flatMap(([, value]) => value.split(","))
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "" && coding !== "identity");
}

/**
 * A decoded answer longer than this is cut off. Decoding itself keeps to the sandbox's pace (zlib
 * waits while the relay is full), so memory stays bounded; but a few kilobytes can decode to
 * gigabytes, each byte searched for keys on the proxy's one thread, which every sandbox shares.
 * An upstream that honours `accept-encoding: identity` never meets it.
 */
export const maxDecodedBytes = 64 * 1024 * 1024;

/**
 * Passes a decoded body on up to `limit` bytes, and fails the body (which cuts the answer off)
 * before the chunk that would pass it goes on.
 *
 * @example decodedLimit(10).end(Buffer.alloc(11)) // emits "error": the decoded answer passed 10 bytes…
 */
export function decodedLimit(limit = maxDecodedBytes): Transform {
  let decoded = 0;
  return new Transform({
    transform: (chunk: Buffer, _encoding, done: TransformCallback) => {
      decoded += chunk.length;
      if (decoded > limit)
        return done(
          new Error(`the decoded answer passed ${limit} bytes, the most the proxy decodes of a compressed answer`),
        );
      done(null, chunk);
    },
  });
}

/** Whether a response header describes the body as the upstream encoded it, and is dropped once the proxy decodes it. */
export function describesEncodedBody(name: string): boolean {
  return name === "content-encoding" || name === "content-length";
}
