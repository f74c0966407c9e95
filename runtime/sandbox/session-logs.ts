import type { SandboxMetadata } from "../state/metadata.js";
import type { RuntimeContext } from "../core/context.js";
import { execInRunning } from "./exec.js";
import { sessionName } from "./session.js";

/** What one tmux window of the agent session shows: its last lines of output. */
export interface WindowLog {
  window: string;
  lines: string[];
}

/**
 * The last `lines` lines of every window of the agent's session (what the agents printed), read
 * with tmux capture-pane inside the sandbox. Empty when the session is gone.
 */
export async function sessionLogs(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  lines: number,
): Promise<WindowLog[]> {
  const list = await execInRunning(context, metadata, [
    "tmux",
    "list-windows",
    "-t",
    sessionName,
    "-F",
    "#{window_index} #{window_name}",
  ]);
  if (list.exitCode !== 0) return [];
  const logs: WindowLog[] = [];
  for (const line of list.stdout.trim().split("\n").filter(Boolean)) {
    const [index, ...name] = line.split(" ");
    const capture = await execInRunning(context, metadata, [
      "tmux",
      "capture-pane",
      "-p",
      "-J",
      "-S",
      `-${lines}`,
      "-t",
      `${sessionName}:${index ?? "0"}`,
    ]);
    const output = capture.stdout.replace(/\n+$/, "").split("\n");
    logs.push({ window: name.join(" "), lines: output.slice(-lines) });
  }
  return logs;
}
