import { createInterface } from "node:readline";

/** Questions on the terminal; close() when done so the process can exit. */
export interface TerminalQuestions {
  /** Resolves with the line typed, or undefined when input ends (Ctrl-D). */
  ask(question: string): Promise<string | undefined>;
  close(): void;
}

/**
 * Questions on this process's terminal (prompts on stderr: stdout carries results), or undefined
 * when stdin is not a terminal: a script must never hang on a question nobody sees. Lines typed
 * (or pasted) ahead of a question are queued for it, not lost.
 */
export function terminalQuestions(): TerminalQuestions | undefined {
  if (process.stdin.isTTY !== true) return undefined;
  const reader = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  const lines: string[] = [];
  let waiting: ((line: string | undefined) => void) | undefined;
  let ended = false;
  reader.on("line", (line) => {
    if (waiting === undefined) return void lines.push(line);
    waiting(line);
    waiting = undefined;
  });
  reader.once("close", () => {
    ended = true;
    waiting?.(undefined);
    waiting = undefined;
  });
  return {
    ask: (question) => {
      reader.setPrompt(question);
      reader.prompt();
      const queued = lines.shift();
      // A line typed ahead answers at once; shown after its question so the screen reads in order.
      if (queued !== undefined) process.stderr.write(`${queued}\n`);
      if (queued !== undefined || ended) return Promise.resolve(queued);
      return new Promise((resolve) => (waiting = resolve));
    },
    close: () => reader.close(),
  };
}
