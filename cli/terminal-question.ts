import { createInterface } from "node:readline";
import { UserError } from "../runtime/core/errors.js";

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

/**
 * Asks before something that cannot be undone: `shown` (what it will do) on stderr, then
 * `question` [y/N]; true only for y or yes. With no terminal to ask on, a usage error saying
 * `noTerminal`: a script never does what nobody saw, nor hangs on a question nobody sees.
 * @example await confirmOnTerminal("Remove these 2 sandboxes?", "  a\n  b\n", "down --all: … pass --yes")
 */
export async function confirmOnTerminal(question: string, shown: string, noTerminal: string): Promise<boolean> {
  const terminal = terminalQuestions();
  if (terminal === undefined) throw new UserError(noTerminal, "usage");
  try {
    // What it will do on stderr beside the question: stdout stays the command's result.
    process.stderr.write(shown);
    const answer = await terminal.ask(`${question} [y/N] `);
    return /^(y|yes)$/i.test((answer ?? "").trim());
  } finally {
    terminal.close();
  }
}
