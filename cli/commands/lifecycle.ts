import type { Command } from "commander";
import { operationsOf } from "../operations.js";
import { registerUp } from "./up-command.js";
import { confirmDownAll, refuseUnaskedDownAll } from "../down-all.js";
import { UserError } from "../../runtime/core/errors.js";
import { dropUndefined } from "../../generator/lib/drop-undefined.js";
import { callersAgentSocket } from "../callers-agent-socket.js";
import { printJson } from "../output.js";

/** up, down, start, stop, reset, checkpoint, restore: creating, running and removing sandboxes. */
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
      // A stdio MCP server's sandbox goes with the sandbox it serves (which refuses to let it go alone).
      // (That sandbox is the one of its creation: a server's sandbox left by an earlier one goes alone.)
      const listed = new Set(all.map((s) => `${s.name}@${s.createdAt}`));
      const served = (s: (typeof all)[number]): boolean =>
        s.mcpServerOf !== undefined && listed.has(`${s.mcpServerOf.sandbox}@${s.mcpServerOf.createdAt}`);
      const names = options.all === true ? all.filter((s) => !served(s)).map((s) => s.name) : [name ?? ""];
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

  program
    .command("checkpoint")
    .description(
      "Save a running sandbox whole (its processes, memory, tmux session) and stop it; restore runs it again where it was (gvisor runtime)",
    )
    .argument("<name>")
    .option(
      "--wait <seconds>",
      "wait up to this long for the sandbox's TCP connections to end (gVisor cannot save one, so none may be open)",
      "0",
    )
    .option("--json", "print the checkpoint as JSON")
    .addHelpText(
      "after",
      [
        "",
        "The sandbox's root, workspace, network and limits stay as they are while it is saved; it runs nothing.",
        "Refused, the sandbox running on, while it has a TCP connection on its link (open, or closed less",
        "than 2 minutes ago): loopback connections inside are saved. start (or stop) discards a checkpoint;",
        "a reboot does too, as it does the sandbox's root.",
        "",
        "Examples:",
        "  forage-ctl checkpoint demo",
        "  forage-ctl checkpoint demo --wait 120   # let its connections close first",
        "  forage-ctl restore demo",
      ].join("\n"),
    )
    .action(async (name: string, options: { wait: string; json?: boolean }) => {
      const saved = await (
        await operations()
      ).checkpoint({ name, wait: seconds(options.wait, "--wait") }, (line) => process.stderr.write(`  ${line}…\n`));
      if (options.json === true) return printJson({ name, ...saved });
      const size = `${(saved.bytes / 1024 ** 2).toFixed(1)} MiB`;
      process.stdout.write(`checkpointed ${name} (image ${size}; forage-ctl restore ${name} runs it again)\n`);
    });

  program
    .command("restore")
    .description("Run a checkpointed sandbox again where it was: its processes, memory and tmux session as saved")
    .argument("<name>")
    .action(async (name: string) => {
      await (await operations()).restore({ name });
      process.stdout.write(`restored ${name}\n`);
    });
}

function seconds(text: string, option = "--timeout"): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0 || value > 3600)
    throw new UserError(`${option}: "${text}" is not a whole number of seconds (0-3600)`, "usage");
  return value;
}
