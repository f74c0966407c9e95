import type { IncomingMessage } from "node:http";

/**
 * A whole HTTP body as UTF-8 text, or a rejection saying `what` is over `maxBytes` (nothing past
 * the limit is kept). `onTooLong` says what becomes of the stream then: the server's answer is
 * destroyed; a sandbox's request is read to its end and dropped, so the sandbox gets the reason.
 *
 * @example await readBounded(answer, 4 << 20, "the MCP server's answer", (a) => a.destroy())
 */
export function readBounded(
  body: IncomingMessage,
  maxBytes: number,
  what: string,
  onTooLong: (body: IncomingMessage) => void = () => undefined,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    body.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      onTooLong(body);
      reject(`${what} is over ${maxBytes} bytes`);
    });
    body.once("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    body.once("error", (error) => reject(`${what} broke: ${error.message}`));
  });
}
