import type { Command } from "commander";
import { operationsOf } from "../operations.js";
import { registerUp } from "./up-command.js";
import { confirmDownAll, refuseUnaskedDownAll } from "../down-all.js";
import { UserError } from "../../runtime/core/errors.js";
import { dropUndefined } from "../../generator/lib/drop-undefined.js";
import { callersAgentSocket } from "../callers-agent-socket.js";

/** up, down, start, stop, reset: creating, running and removing sandboxes. */
export function registerLifecycle(program: Command): void {
  // Root's commands go to a daemon serving the same settings and build when one runs (operations.ts).
  const operations = () => operationsOf(program, { preferDaemon: true });
  registerUp(program);

  program
    .command("down")
    .description("Stop and remove a sandbox (its direct workspace is kept)")
    .argument("[name]", "sandbox to remove")
    .option("--all", "remove every sandbox: lists them and asks first on a terminal")
    .option("-y, --yes", "with --all: remove without asking (scripts; without a terminal --all needs it)")
    .option("-t, --timeout <seconds>", "grace period before processes are killed", "10")
    .addHelpText(
      "after",
      "\nExamples:\n  forage-ctl down demo\n  forage-ctl down --all          # lists every sandbox, then asks\n  forage-ctl down --all --yes    # in scripts: no question",
    )
    .action(async (name: string | undefined, options: { all?: boolean; yes?: boolean; timeout: string }) => {
      if ((name === undefined) === (options.all !== true)) throw new UserError("give a sandbox name or --all", "usage");
      if (options.yes === true && options.all !== true)
        throw new UserError("--yes goes with --all (down NAME does not ask)", "usage");
      if (options.all === true) refuseUnaskedDownAll(options.yes === true);
      const ops = await operations();
      const all = options.all === true ? await ops.list({}) : [];
      if (options.all === true && all.length === 0) return void process.stdout.write("no sandboxes to remove\n");
      if (options.all === true && !(await confirmDownAll(all, options.yes === true)))
        return void process.stdout.write("nothing removed\n");
      const names = options.all === true ? all.map((s) => s.name) : [name ?? ""];
      for (const each of names) {
        await ops.down({ name: each, grace: seconds(options.timeout) });
        process.stdout.write(`removed ${each}\n`);
      }
    });

  program
    .command("start")
    .description("Start a stopped sandbox on a fresh root")
    .argument("<name>")
    .action(async (name: string) => {
      await (await operations()).start(dropUndefined({ name, sshAuthSock: callersAgentSocket() }));
      process.stdout.write(`started ${name}\n`);
    });

  program
    .command("stop")
    .description("Stop a sandbox, keeping it (and its workspace) for a later start")
    .argument("<name>")
    .option("-t, --timeout <seconds>", "grace period before processes are killed", "10")
    .action(async (name: string, options: { timeout: string }) => {
      await (await operations()).stop({ name, grace: seconds(options.timeout) });
      process.stdout.write(`stopped ${name}\n`);
    });

  program
    .command("reset")
    .description(
      "Recreate a sandbox from its template: root wiped, workspace and metadata kept, secrets re-copied, init re-run",
    )
    .argument("<name>")
    .action(async (name: string) => {
      await (await operations()).reset(dropUndefined({ name, sshAuthSock: callersAgentSocket() }));
      process.stdout.write(`reset ${name}\n`);
    });
}

function seconds(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0 || value > 3600)
    throw new UserError(`--timeout: "${text}" is not a whole number of seconds (0-3600)`, "usage");
  return value;
}
