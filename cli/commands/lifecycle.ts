import { resolve } from "node:path";
import type { Command } from "commander";
import { sandboxLink } from "../../runtime/network/sandbox-link.js";
import { requireSandbox, findTemplate } from "../../runtime/sandbox/context.js";
import { destroySandbox } from "../../runtime/sandbox/down.js";
import { runInit, startSession } from "../../runtime/sandbox/session.js";
import { copySecrets } from "../../runtime/sandbox/secrets.js";
import { isRunning, startSandbox, stopSandbox } from "../../runtime/sandbox/start-stop.js";
import { upSandbox } from "../../runtime/sandbox/up.js";
import { recordEvent } from "../../runtime/sandbox/audit-log.js";
import { listMetadata } from "../../runtime/state/metadata-store.js";
import { ExitCode } from "../exit-codes.js";
import { runtimeContext } from "../runtime-context.js";
import { UserError } from "../user-error.js";

type GlobalOptions = { config?: string };

/** up, down, start, stop, reset: creating, running and removing sandboxes. */
export function registerLifecycle(program: Command): void {
  const config = (): string | undefined => program.opts<GlobalOptions>().config;
  program
    .command("up")
    .description("Create and start a sandbox from a template")
    .argument("<name>", "sandbox name: 1-63 of a-z, 0-9 and '-'")
    .requiredOption("-t, --template <template>", "template to create it from (see forage-ctl templates)")
    .requiredOption("-w, --workspace <dir>", "host directory mounted at /workspace (direct mode)")
    .option("--git-user <name>", "author name for commits made in the sandbox")
    .option("--git-email <email>", "author e-mail for commits made in the sandbox")
    .addHelpText("after", "\nExample:\n  sudo forage-ctl up myproj -t claude -w ~/src/myproj\n  sudo forage-ctl exec myproj -- git status")
    .action(async (name: string, options: { template: string; workspace: string; gitUser?: string; gitEmail?: string }) => {
      const context = await runtimeContext(config());
      const template = findTemplate(context, options.template);
      const identity = { ...template.agentIdentity, ...(options.gitUser === undefined ? {} : { gitUser: options.gitUser }), ...(options.gitEmail === undefined ? {} : { gitEmail: options.gitEmail }) };
      const progress = process.stderr.isTTY ? (step: string) => process.stderr.write(`  ${step}…\n`) : undefined;
      const sandbox = await upSandbox(context, {
        name,
        template: options.template,
        workspace: resolve(options.workspace),
        identity: { ...(identity.gitUser === undefined ? {} : { gitUser: identity.gitUser }), ...(identity.gitEmail === undefined ? {} : { gitEmail: identity.gitEmail }) },
        ...(progress === undefined ? {} : { progress }),
      });
      const link = sandboxLink(sandbox.slot, context.settings.host.network.base);
      process.stdout.write(
        `sandbox ${name} is up (template ${options.template}, ${link.sandboxAddress}, workspace ${sandbox.workspace.hostPath})\n` +
          `  attach:  forage-ctl attach ${name}\n  run:     forage-ctl exec ${name} -- COMMAND\n  remove:  forage-ctl down ${name}\n`,
      );
    });

  program
    .command("down")
    .description("Stop and remove a sandbox (its direct workspace is kept)")
    .argument("[name]", "sandbox to remove")
    .option("--all", "remove every sandbox")
    .option("-t, --timeout <seconds>", "grace period before processes are killed", "10")
    .action(async (name: string | undefined, options: { all?: boolean; timeout: string }) => {
      const context = await runtimeContext(config());
      if ((name === undefined) === (options.all !== true)) throw new UserError("give a sandbox name or --all", ExitCode.usage);
      const names = options.all === true ? (await listMetadata(context.paths)).map((m) => m.name) : [name ?? ""];
      for (const each of names) {
        await destroySandbox(context, each, seconds(options.timeout));
        process.stdout.write(`removed ${each}\n`);
      }
    });

  program
    .command("start")
    .description("Start a stopped sandbox on a fresh root")
    .argument("<name>")
    .action(async (name: string) => {
      const context = await runtimeContext(config());
      const metadata = await requireSandbox(context, name);
      if (await isRunning(context, metadata)) return void process.stdout.write(`${name} is already running\n`);
      const template = findTemplate(context, metadata.template);
      const running = await startSandbox(context, metadata, template);
      await startSession(context, running, template);
      await runInit(context, running, template);
      process.stdout.write(`started ${name}\n`);
    });

  program
    .command("stop")
    .description("Stop a sandbox, keeping it (and its workspace) for a later start")
    .argument("<name>")
    .option("-t, --timeout <seconds>", "grace period before processes are killed", "10")
    .action(async (name: string, options: { timeout: string }) => {
      const context = await runtimeContext(config());
      await stopSandbox(context, await requireSandbox(context, name), seconds(options.timeout));
      process.stdout.write(`stopped ${name}\n`);
    });

  program
    .command("reset")
    .description("Recreate a sandbox from its template: root wiped, workspace and metadata kept, secrets re-copied, init re-run")
    .argument("<name>")
    .action(async (name: string) => {
      const context = await runtimeContext(config());
      const metadata = await requireSandbox(context, name);
      const template = findTemplate(context, metadata.template);
      const stopped = await stopSandbox(context, metadata);
      const secrets = await copySecrets(context.paths, name, template, context.settings.host, stopped);
      const running = await startSandbox(context, { ...stopped, secrets }, template);
      await startSession(context, running, template);
      await runInit(context, running, template);
      await recordEvent(context.paths, name, "reset");
      process.stdout.write(`reset ${name}\n`);
    });
}

function seconds(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0 || value > 3600) throw new UserError(`--timeout: "${text}" is not a whole number of seconds (0-3600)`, ExitCode.usage);
  return value;
}
