import type { Command } from "commander";
import { UserError } from "../../runtime/core/errors.js";

/**
 * `pick`: the sandboxes on a terminal, and a wizard for a new one. The terminal-UI library
 * (ink, react) is loaded only when pick runs: `forage-ctl --help` registers every command, and
 * must not pay for it.
 */
export function registerPick(program: Command): void {
  program
    .command("pick")
    .description("Choose a sandbox on the terminal: attach to it, remove it, or create one with a wizard")
    .addHelpText(
      "after",
      "\nThe sandboxes are grouped by repository (the one a jj workspace or git worktree was made from, or the\n" +
        "directory mounted as is), each with its template, status, workspace mode and the approvals waiting\n" +
        "for it, read again every 2 s. After a detach (C-b d) the list comes back. Keys:\n" +
        "  / filter (type; Esc clears)   ↑/↓ or k/j move   Enter attach (as forage-ctl attach)\n" +
        "  n new sandbox (wizard)        d remove (asks first; as forage-ctl down)   q quit\n" +
        "With no sandboxes the wizard opens at once: project directory (Tab completes), template, name,\n" +
        "advanced (mount as is, no ~/.tmux.conf, git user and email, ssh key path), confirm; then it runs\n" +
        "what forage-ctl up runs, and attaches. pick needs a terminal: scripts use ps, up, attach and down.",
    )
    .action(() => openPicker(program));
}

/** `forage-ctl pick`'s whole run, from its terminal check on: also what `gateway` opens with no name. */
export async function openPicker(program: Command): Promise<void> {
  if (process.stdin.isTTY !== true || process.stdout.isTTY !== true) {
    throw new UserError(
      "pick needs a terminal (stdin and stdout): in scripts use forage-ctl ps, up, attach and down",
      "usage",
    );
  }
  const { runPick } = await loadPicker();
  await runPick(program);
}

const ciVariables = ["CI", "CONTINUOUS_INTEGRATION"] as const;

/**
 * The picker and its library. ink draws only the last frame when CI or CONTINUOUS_INTEGRATION
 * is set (its is-in-ci reads them once, as it loads), so a person at a terminal with CI=true in
 * the environment would see nothing until pick ended. pick runs only on a terminal: they are
 * hidden while ink loads, and put back for everything pick then runs.
 */
async function loadPicker(): Promise<typeof import("../pick/run-pick.js")> {
  const saved = ciVariables.map((name) => [name, process.env[name]] as const);
  for (const name of ciVariables) delete process.env[name];
  try {
    return await import("../pick/run-pick.js");
  } finally {
    for (const [name, value] of saved) if (value !== undefined) process.env[name] = value;
  }
}
