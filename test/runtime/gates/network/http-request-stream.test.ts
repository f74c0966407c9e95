import { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { describe, expect, it } from "vitest";
import { HttpRequestStream, RefusedRequest } from "../../../../runtime/gates/network/sni/http-request-stream.js";

/*
 * Every request on a gated HTTP connection, pipelined or kept alive, is judged before a byte of it
 * is forwarded. The judge here allows a.test only, as the gate allows only the name it connected to.
 */
const judge = (host: string, index: number): string | null =>
  host === "a.test" ? null : `request ${index} names ${host}, the connection is for a.test`;

/** What the stream forwards of `chunks`, and how it ended. */
async function through(chunks: string[]): Promise<{ forwarded: string; error?: string }> {
  let forwarded = "";
  const out = new Writable({
    write: (chunk: Buffer, _encoding, done) => done(void (forwarded += chunk.toString("latin1"))),
  });
  const error = await pipeline(
    Readable.from(chunks.map((chunk) => Buffer.from(chunk, "latin1"))),
    new HttpRequestStream(80, judge),
    out,
  ).then(
    () => undefined,
    (failure: Error) => (failure instanceof RefusedRequest ? failure.message : `unexpected: ${failure.message}`),
  );
  return { forwarded, ...(error === undefined ? {} : { error }) };
}

const get = (host: string) => `GET / HTTP/1.1\r\nHost: ${host}\r\n\r\n`;

describe("the requests of a gated HTTP connection", () => {
  it("refuses a pipelined second request for another host, forwarding none of its bytes", async () => {
    const result = await through([get("a.test") + get("other.example")]);
    expect(result.error).toBe("request 2 names other.example, the connection is for a.test");
    expect(result.forwarded).toBe(get("a.test"));
  });

  it("refuses a later request whose head is over the limit even when it arrives whole", async () => {
    const long = `GET / HTTP/1.1\r\nHost: a.test\r\nX-Pad: ${"a".repeat(20_000)}\r\n\r\n`;
    const result = await through([get("a.test") + long]);
    expect(result.error).toMatch(/request head too long/);
    expect(result.forwarded).toBe(get("a.test"));
  });

  it("forwards pipelined and kept-alive requests for the same host unchanged (control)", async () => {
    const post = "POST /p HTTP/1.1\r\nHost: a.test\r\nContent-Length: 11\r\n\r\nhello world";
    const result = await through([get("a.test") + post, get("a.test")]);
    expect(result).toEqual({ forwarded: get("a.test") + post + get("a.test") });
  });

  it("treats a body as a body, and judges the request after it, byte by byte", async () => {
    const smuggled = get("other.example");
    const post = `POST / HTTP/1.1\r\nHost: a.test\r\nContent-Length: ${smuggled.length}\r\n\r\n${smuggled}`;
    const all = post + get("other.example");
    const result = await through([...all]);
    expect(result.forwarded).toBe(post);
    expect(result.error).toBe("request 2 names other.example, the connection is for a.test");
  });

  it("follows chunked bodies to the next request, trailers included", async () => {
    const chunked =
      "POST / HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n1b\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n\r\n0\r\nX-T: 1\r\n\r\n";
    expect(await through([chunked + get("a.test")])).toEqual({ forwarded: chunked + get("a.test") });
    const result = await through([chunked, get("other.example")]);
    expect(result.error).toBe("request 2 names other.example, the connection is for a.test");
  });

  it("refuses malformed chunking and a malformed later head", async () => {
    const start = "POST / HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked\r\n\r\n";
    expect((await through([`${start}5\r\nhelloXX0\r\n\r\n`])).error).toBe("request 1: chunk data not followed by CRLF");
    expect((await through([`${start}-5\r\n`])).error).toBe("request 1: malformed chunk size");
    expect((await through([get("a.test") + "GET / HTTP/1.1\r\nHost : other.example\r\n\r\n"])).error).toContain(
      "request 2: malformed header line",
    );
  });
});
