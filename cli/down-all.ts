import type { SandboxView } from "../runtime/api/sandbox-view.js";
import { UserError } from "../runtime/core/errors.js";
import { confirmOnTerminal } from "./terminal-question.js";

const noTerminal =
  "down --all removes every sandbox and asks first, and there is no terminal to ask on (stdin is not one): pass --yes to remove them without asking";

/**
 * Refuses `down --all` without --yes when there is no terminal to ask on, before anything is
 * looked up: a script gets the same answer whether there are sandboxes or not.
 */
export function refuseUnaskedDownAll(yes: boolean): void {
  if (yes || process.stdin.isTTY === true) return;
  throw new UserError(noTerminal, "usage");
}

/**
 * Whether to remove these sandboxes: yes with --yes; else they are listed, each with what goes
 * with it, and the terminal is asked.
 * @example
 * down --all removes 2 sandboxes:
 *   demo   template default, running, directory /home/alice/src/demo kept
 *   fix-1  template claude, stopped, git-worktree /var/lib/forage/workspaces/fix-1 removed
 * Remove them? [y/N]
 */
export async function confirmDownAll(sandboxes: readonly SandboxView[], yes: boolean): Promise<boolean> {
  if (yes) return true;
  const width = Math.max(...sandboxes.map((s) => s.name.length));
  const lines = sandboxes.map(
    (s) => `  ${s.name.padEnd(width)}  template ${s.template}, ${s.status}, ${workspaceFate(s)}\n`,
  );
  const count = sandboxes.length === 1 ? "1 sandbox" : `${sandboxes.length} sandboxes`;
  return confirmOnTerminal(
    sandboxes.length === 1 ? "Remove it?" : "Remove them?",
    `down --all removes ${count}:\n${lines.join("")}`,
    noTerminal,
  );
}

/** A direct workspace stays (down never touches it); a jj workspace or git worktree made for the sandbox goes. */
function workspaceFate(sandbox: SandboxView): string {
  return sandbox.workspaceMode === "direct"
    ? `directory ${sandbox.workspace} kept`
    : `${sandbox.workspaceMode} ${sandbox.workspace} removed`;
}
