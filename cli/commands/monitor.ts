import type { Command } from "commander";
import { setTimeout as sleep } from "node:timers/promises";
import { recordEvent } from "../../runtime/sandbox/audit-log.js";
import { findTemplate, type RuntimeContext } from "../../runtime/sandbox/context.js";
import { hasSession, runInit, startSession } from "../../runtime/sandbox/session.js";
import { isRunning, startSandbox, stopSandbox } from "../../runtime/sandbox/start-stop.js";
import { listMetadata } from "../../runtime/state/metadata-store.js";
import type { SandboxMetadata } from "../../runtime/state/metadata.js";
import { ExitCode } from "../exit-codes.js";
import { runtimeContext } from "../runtime-context.js";
import { UserError } from "../user-error.js";

/** A sandbox that should be running (it was started and not stopped) but is not healthy. */
async function checkOne(context: RuntimeContext, sandbox: SandboxMetadata, autoRestart: boolean): Promise<string | undefined> {
  if (sandbox.phase !== "ready" || sandbox.pid === null) return undefined;
  const running = await isRunning(context, sandbox);
  const problem = !running ? "container is gone" : (await hasSession(context, sandbox)) ? undefined : "agent session is gone";
  if (problem === undefined) return undefined;
  await recordEvent(context.paths, sandbox.name, "error", { detail: `health: ${problem}` });
  if (!autoRestart) return `${sandbox.name}: unhealthy (${problem})`;
  const template = findTemplate(context, sandbox.template);
  const restarted = running ? sandbox : await startSandbox(context, await stopSandbox(context, sandbox, 1), template);
  await startSession(context, restarted, template);
  if (!running) await runInit(context, restarted, template);
  return `${sandbox.name}: unhealthy (${problem}), restarted`;
}

export function registerMonitor(program: Command): void {
  program
    .command("monitor")
    .description("Watch running sandboxes; report (and with --auto-restart, restart) unhealthy ones")
    .option("--interval <seconds>", "seconds between checks", "60")
    .option("--auto-restart", "restart a sandbox whose container or agent session died")
    .option("--once", "check once and exit (status 1 when any sandbox is unhealthy)")
    .action(async (options: { interval: string; autoRestart?: boolean; once?: boolean }) => {
      const interval = Number(options.interval);
      if (!Number.isInteger(interval) || interval < 1) throw new UserError(`--interval: "${options.interval}" is not a whole number of seconds`, ExitCode.usage);
      const context = await runtimeContext(program.opts<{ config?: string }>().config);
      for (;;) {
        const reports: string[] = [];
        for (const sandbox of await listMetadata(context.paths)) {
          const report = await checkOne(context, sandbox, options.autoRestart === true);
          if (report !== undefined) reports.push(report);
        }
        for (const report of reports) process.stdout.write(`${new Date().toISOString()} ${report}\n`);
        if (options.once === true) {
          if (reports.length > 0) process.exitCode = ExitCode.general;
          return;
        }
        await sleep(interval * 1000);
      }
    });
}
