import { describe, expect, it } from "vitest";
import { parseTerminalHolders } from "../../../../runtime/backends/gvisor/runsc.js";

// `runsc ps` as Debian's runsc (2022) printed it for a sandbox whose tmux server had just ended:
// its pane shell (PID 7) still held pts/0.
const table = `UID       PID       PPID      C         TTY       STIME     TIME      CMD
65534     1         0         0         ?         05:42     20ms      bash
65534     2         1         0         ?         05:42     0s        sleep
65534     7         1         2         pts/0     05:42     30ms      bash
65534     9         7         0         pts/0     05:42     0s        vim notes.md
`;

describe("the processes of a gVisor sandbox that hold a terminal", () => {
  it("are the rows whose TTY names one, by PID, whatever the command's spaces", () => {
    expect(parseTerminalHolders(table)).toEqual([7, 9]);
  });

  it("never include PID 1, and are none for a table without the columns or rows", () => {
    const initWithTerminal = table.replace(/^(65534 +1 +0 +0 +)\? /m, "$1pts/1");
    expect(initWithTerminal).toContain("pts/1");
    expect(parseTerminalHolders(initWithTerminal)).toEqual([7, 9]);
    expect(parseTerminalHolders("")).toEqual([]);
    expect(parseTerminalHolders("runsc: container not found\n")).toEqual([]);
    expect(parseTerminalHolders(table.split("\n")[0] ?? "")).toEqual([]);
  });
});
