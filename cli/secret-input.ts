import { UserError } from "../runtime/core/errors.js";

/** More than any token or login file; a larger input is a mistake (a binary, the wrong file). */
const maxBytes = 64 * 1024;

/**
 * Reads a secret the user hands over: all of stdin when it is piped, or one line typed or pasted
 * on the terminal with echo off (the value never shows on the screen, never in argv or history).
 */
export async function readSecretInput(prompt: string): Promise<string> {
  const { stdin } = process;
  if (stdin.isTTY === true) return readHiddenLine(prompt);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    size += (chunk as Buffer).length;
    if (size > maxBytes)
      throw new UserError(`stdin holds more than ${maxBytes} bytes: pipe only the token or the login file`, "usage");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** One line from the terminal in raw mode, not echoed; Ctrl-C or Ctrl-D gives up. */
function readHiddenLine(prompt: string): Promise<string> {
  const { stdin, stderr } = process;
  stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.resume();
  return new Promise((resolve, reject) => {
    let line = "";
    const finish = (error?: UserError): void => {
      stdin.off("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
      stderr.write("\n");
      if (error === undefined) resolve(line);
      else reject(error);
    };
    const onData = (chunk: Buffer): void => {
      for (const character of chunk.toString("utf8")) {
        if (character === "\r" || character === "\n") return finish();
        if (character === "\u0003" || character === "\u0004") return finish(new UserError("nothing stored", "usage"));
        if (character === "\u007f" || character === "\b") line = line.slice(0, -1);
        else line += character;
      }
    };
    stdin.on("data", onData);
  });
}
