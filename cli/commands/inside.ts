import type { Command } from "commander";
import { operationsOf } from "../operations.js";
import { relayThisTerminal } from "../relayed-terminal.js";
import { relayThisProcessSignals } from "../relayed-signals.js";
import { UserError } from "../../runtime/core/errors.js";
import { registerSsh } from "./ssh.js";

/**
 * Runs a command with this process's terminal; the exit status becomes forage-ctl's. The terminal
 * is relayed, never handed over, whether this process does the work (root without a daemon
 * serving its settings) or the daemon does: an interactive terminal goes to a pseudo-terminal made
 * inside the sandbox (keys, output, window size), plain streams go as pipes. A sandbox that held
 * this terminal could type into the shell forage-ctl returns to. The signals forage-ctl gets
 * meanwhile go on to the command (relayed-signals.ts).
 */
export async function runInside(program: Command, name: string, command: string[], asRoot: boolean): Promise<number> {
  // Root's commands (a root shell too) may go to a daemon that serves the same settings, on root's socket.
  const ops = await operationsOf(program, { preferDaemon: true });
  const relayed = relayThisTerminal();
  const signals = relayThisProcessSignals();
  const streams = {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    onSignal: signals.onSignal,
  };
  return ops
    .exec({ name, command, asRoot }, relayed === undefined ? streams : { ...streams, terminal: relayed.terminal })
    .finally(() => {
      signals.restore();
      relayed?.restore();
      process.stdin.destroy();
    });
}

/** exec, shell, attach, ssh: running things inside a sandbox. */
export function registerInside(program: Command): void {
  registerSsh(program);
  program
    .command("exec")
    .description("Run a command in a sandbox as the agent, in the workspace; its exit status is forage-ctl's")
    .argument("<name>", "sandbox")
    .argument("<command...>", "command and arguments (put -- before them)")
    .addHelpText("after", "\nExample:\n  forage-ctl exec myproj -- git log --oneline -5")
    .action(async (name: string, command: string[]) => {
      process.exitCode = await runInside(program, name, command, false);
    });

  program
    .command("shell")
    .description("Open a root shell in a sandbox (for the user, not the agent)")
    .argument("<name>", "sandbox")
    .action(async (name: string) => {
      process.exitCode = await runInside(program, name, ["bash", "-l"], true);
    });

  program
    .command("attach")
    .description(`Attach to the sandbox's tmux session "forage" (detach with C-b d)`)
    .argument("<name>", "sandbox")
    .action((name: string) => attachSandbox(program, name));
}

/** Attaches this terminal to a sandbox's tmux session: `forage-ctl attach`, and Enter in `pick`. */
export async function attachSandbox(program: Command, name: string): Promise<void> {
  if (!process.stdin.isTTY) throw new UserError("attach needs a terminal; use forage-ctl exec for scripts", "attach");
  const code = await runInside(program, name, ["tmux", "attach-session", "-t", "forage"], false);
  if (code !== 0) throw new UserError(`could not attach to ${name}'s session (tmux exit ${code})`, "attach");
}
