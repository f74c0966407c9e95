import type { Command } from "commander";
import { setTimeout as sleep } from "node:timers/promises";
import { checkAll } from "../../runtime/sandbox/health.js";
import { ExitCode } from "../exit-codes.js";
import { runtimeContext } from "../runtime-context.js";
import { UserError } from "../../runtime/core/errors.js";

export function registerMonitor(program: Command): void {
  program
    .command("monitor")
    .description("Watch running sandboxes; report (and with --auto-restart, restart) unhealthy ones")
    .option("--interval <seconds>", "seconds between checks", "60")
    .option("--auto-restart", "restart a sandbox whose container or agent session died, or its network guard")
    .option("--once", "check once and exit (status 1 when any sandbox is unhealthy)")
    .addHelpText("after", "\nThe daemon runs the same checks by itself when the config sets monitor.enable.")
    .action(async (options: { interval: string; autoRestart?: boolean; once?: boolean }) => {
      const interval = Number(options.interval);
      if (!Number.isInteger(interval) || interval < 1)
        throw new UserError(`--interval: "${options.interval}" is not a whole number of seconds`, "usage");
      const context = await runtimeContext(program.opts<{ config?: string }>().config);
      for (;;) {
        const reports = await checkAll(context, options.autoRestart === true);
        for (const report of reports) process.stdout.write(`${new Date().toISOString()} ${report}\n`);
        if (options.once === true) {
          if (reports.length > 0) process.exitCode = ExitCode.general;
          return;
        }
        await sleep(interval * 1000);
      }
    });
}
