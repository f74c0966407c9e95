import type { RelayedTerminal } from "../runtime/api/exec-streams.js";

/**
 * This process's terminal, described for the daemon, which runs the command on a pseudo-terminal
 * of its own: raw mode here (every key, C-c and C-b included, goes to the sandbox), the window
 * size now and on every resize. `restore` puts the terminal back as it was.
 */
export function relayThisTerminal(): { terminal: RelayedTerminal; restore: () => void } | undefined {
  const { stdin, stdout } = process;
  if (!stdin.isTTY || !stdout.isTTY) return undefined;
  const size = (): { rows: number; cols: number } => ({
    rows: cells(stdout.rows, 24),
    cols: cells(stdout.columns, 80),
  });
  stdin.setRawMode(true);
  return {
    terminal: {
      size: size(),
      term: process.env.TERM ?? "xterm-256color",
      onResize: (listener) => void stdout.on("resize", () => listener(size())),
    },
    restore: () => stdin.setRawMode(false),
  };
}

/** A terminal that does not know its size reports 0: use the classic default instead. */
function cells(reported: number | undefined, fallback: number): number {
  return reported === undefined || reported < 1 ? fallback : Math.min(1000, reported);
}
