// Answers shaped like a model's, for the proxy relay benchmark: the text a redactor searches is
// what matters (JSON with `\n`, `\"`, `&`, `%` in it, as code in an answer has), not its meaning.
import type { ServerResponse } from "node:http";
import type { TestUpstream } from "../test/support/test-upstream.js";

/** A stretch of an answer's text, JSON-escaped as it travels: code, quotes, newlines, an entity, a percent. */
const text = JSON.stringify(
  'Here is the fix:\n\n```ts\nconst url = "https://example.com/a?b=1&c=2";\nif (ratio > 50) log(`${ratio}% done`);\n```\n',
).slice(1, -1);

/** One server-sent event of a streamed answer, as Anthropic sends its text deltas. */
export const modelEvent = `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${text}"}}\n\n`;

const usage = '"usage":{"input_tokens":12,"output_tokens":34}';

/** A JSON answer of about `bytes` bytes: its text repeated, then its usage. */
export function modelAnswer(bytes: number): string {
  return `{"content":[{"type":"text","text":"${text.repeat(Math.ceil(bytes / text.length))}"}],${usage}}`;
}

/**
 * Serves, under `/v1/answer/`:
 * - `json?bytes=N`: one JSON answer of about N bytes (its text repeated), with a usage field;
 * - `sse?events=N`: N text-delta events, each its own write, then the usage event.
 */
export function serveModelAnswers(upstream: TestUpstream): void {
  upstream.route("/v1/answer/", (received, res: ServerResponse) => {
    const url = new URL(received.path, "https://upstream.test");
    if (url.pathname.endsWith("/sse")) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (let index = 0; index < Number(url.searchParams.get("events")); index += 1) res.write(modelEvent);
      return void res.end(`event: message_delta\ndata: {"type":"message_delta",${usage}}\n\n`);
    }
    const body = modelAnswer(Number(url.searchParams.get("bytes")));
    res
      .writeHead(200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) })
      .end(body);
  });
}
