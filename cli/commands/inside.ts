import type { Command } from "commander";
import { execInSandbox } from "../../runtime/sandbox/exec.js";
import { sessionName } from "../../runtime/sandbox/session.js";
import { ExitCode } from "../exit-codes.js";
import { runtimeContext } from "../runtime-context.js";
import { UserError } from "../user-error.js";

type GlobalOptions = { config?: string };

/** exec, shell, attach: running things inside a sandbox. */
export function registerInside(program: Command): void {
  const config = (): string | undefined => program.opts<GlobalOptions>().config;
  program
    .command("exec")
    .description("Run a command in a sandbox as the agent, in the workspace; its exit status is forage-ctl's")
    .argument("<name>", "sandbox")
    .argument("<command...>", "command and arguments (put -- before them)")
    .addHelpText("after", "\nExample:\n  forage-ctl exec myproj -- git log --oneline -5")
    .action(async (name: string, command: string[]) => {
      const context = await runtimeContext(config());
      const result = await execInSandbox(context, name, command, { stdio: "inherit" });
      process.exitCode = result.exitCode;
    });

  program
    .command("shell")
    .description("Open a root shell in a sandbox (for the user, not the agent)")
    .argument("<name>", "sandbox")
    .action(async (name: string) => {
      const context = await runtimeContext(config());
      const result = await execInSandbox(context, name, ["bash", "-l"], { asRoot: true, stdio: "inherit" });
      process.exitCode = result.exitCode;
    });

  for (const verb of ["attach", "ssh"]) {
    program
      .command(verb)
      .description(`Attach to the sandbox's tmux session "${sessionName}" (detach with C-b d)`)
      .argument("<name>", "sandbox")
      .action(async (name: string) => {
        if (!process.stdin.isTTY) throw new UserError(`${verb} needs a terminal; use forage-ctl exec for scripts`, ExitCode.attach);
        const context = await runtimeContext(config());
        const result = await execInSandbox(context, name, ["tmux", "attach-session", "-t", sessionName], { stdio: "inherit" });
        if (result.exitCode !== 0) throw new UserError(`could not attach to ${name}'s session (tmux exit ${result.exitCode})`, ExitCode.attach);
      });
  }
}
