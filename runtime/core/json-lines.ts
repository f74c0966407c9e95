/*
 * The project's local sockets (the daemon's, the network guard host's) carry one JSON object per
 * line in both directions.
 */

/** Largest line either side accepts: requests are small; output is chunked well below this. */
export const maxLineBytes = 1024 * 1024;

/** Splits a byte stream into JSON lines, calling `onMessage` for each parsed object. */
export function lineReader(
  onMessage: (message: unknown) => void,
  onError: (error: Error) => void,
): (chunk: Buffer) => void {
  let buffered = "";
  return (chunk) => {
    buffered += chunk.toString("utf8");
    if (buffered.length > maxLineBytes) {
      onError(new Error(`protocol line longer than ${maxLineBytes} bytes`));
      buffered = "";
      return;
    }
    let newline = buffered.indexOf("\n");
    while (newline !== -1) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line.trim() !== "") {
        try {
          onMessage(JSON.parse(line) as unknown);
        } catch {
          onError(new Error("protocol line is not JSON"));
        }
      }
      newline = buffered.indexOf("\n");
    }
  };
}
