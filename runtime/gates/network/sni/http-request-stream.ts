import { Transform, type TransformCallback } from "node:stream";
import { readRequestHead } from "./http-request-head.js";

/** A request on a gated HTTP connection the gate refused; the connection goes with it. */
export class RefusedRequest extends Error {}

/** Where the stream is in the connection's requests. */
type State =
  | { kind: "head" }
  | { kind: "length"; left: number }
  | { kind: "chunk-size" }
  | { kind: "chunk-data"; left: number }
  | { kind: "chunk-end" }
  | { kind: "trailers" };

/** Longest chunk-size or trailer line read (chunk extensions are not for carrying data). */
const maxLineBytes = 4096;
const chunkSizeLine = /^([0-9a-fA-F]{1,15})(;[\t\x20-\x7e]*)?$/;
const trailerLine = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+:[\t\x20-\x7e\x80-\xff]*$/;

/**
 * The client → server half of a gated HTTP connection: every request on it (pipelined or kept
 * alive) is read with the same strict parser as the first, and framed by its Content-Length or
 * chunked coding, so the gate knows where the next one starts; `judge` sees each request's host
 * before a byte of that request is forwarded, and a refusal (its reason) ends the stream with
 * RefusedRequest. Bytes pass unchanged.
 *
 * @example new HttpRequestStream(80, (host, index) => (host === "a.example" ? null : `request ${index} names ${host}`))
 */
export class HttpRequestStream extends Transform {
  private pending: Buffer = Buffer.alloc(0);
  private state: State = { kind: "head" };
  private requests = 0;

  constructor(
    private readonly port: number,
    private readonly judge: (host: string, index: number) => string | null,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    try {
      let moved = true;
      while (moved && this.pending.length > 0) moved = this.step();
      done();
    } catch (error) {
      done(error as Error);
    }
  }

  /** Moves past one piece of the stream; false when it needs more bytes. */
  private step(): boolean {
    const state = this.state;
    switch (state.kind) {
      case "head":
        return this.head();
      case "length":
      case "chunk-data": {
        const count = Math.min(state.left, this.pending.length);
        this.forward(count);
        const left = state.left - count;
        this.state = left > 0 ? { ...state, left } : state.kind === "length" ? { kind: "head" } : { kind: "chunk-end" };
        return true;
      }
      case "chunk-end":
        if (this.pending.length < 2) return false;
        if (this.pending.readUInt16BE(0) !== 0x0d0a)
          throw new RefusedRequest(`request ${this.requests}: chunk data not followed by CRLF`);
        this.forward(2);
        this.state = { kind: "chunk-size" };
        return true;
      case "chunk-size":
      case "trailers":
        return this.line(state.kind);
    }
  }

  private head(): boolean {
    const head = readRequestHead(this.pending, this.port);
    if (head.kind === "need-more") return false;
    this.requests++;
    if (head.kind === "refuse") throw new RefusedRequest(`request ${this.requests}: ${head.reason}`);
    const refusal = this.judge(head.host, this.requests);
    if (refusal !== null) throw new RefusedRequest(refusal);
    this.forward(head.length);
    const { body } = head;
    this.state =
      body.kind === "none"
        ? { kind: "head" }
        : body.kind === "length"
          ? { kind: "length", left: body.bytes }
          : { kind: "chunk-size" };
    return true;
  }

  /** A chunk-size line, or a trailer line (an empty one ends the request). */
  private line(kind: "chunk-size" | "trailers"): boolean {
    const end = this.pending.indexOf("\r\n");
    if (end === -1 || end > maxLineBytes) {
      if (end > maxLineBytes || this.pending.length > maxLineBytes)
        throw new RefusedRequest(`request ${this.requests}: ${kind} line too long`);
      return false;
    }
    const text = this.pending.subarray(0, end).toString("latin1");
    if (kind === "trailers") {
      if (text !== "" && !trailerLine.test(text))
        throw new RefusedRequest(`request ${this.requests}: malformed trailer`);
      this.state = text === "" ? { kind: "head" } : this.state;
    } else {
      const size = chunkSizeLine.exec(text)?.[1];
      if (size === undefined) throw new RefusedRequest(`request ${this.requests}: malformed chunk size`);
      const bytes = parseInt(size, 16);
      this.state = bytes === 0 ? { kind: "trailers" } : { kind: "chunk-data", left: bytes };
    }
    this.forward(end + 2);
    return true;
  }

  private forward(count: number): void {
    this.push(this.pending.subarray(0, count));
    this.pending = this.pending.subarray(count);
  }
}
