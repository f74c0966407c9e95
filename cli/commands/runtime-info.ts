import type { Command } from "commander";
import { detectRuntimes, type RuntimeInfo } from "../../runtime/backends/registry.js";
import { NoSettingsError } from "../../runtime/settings/load-settings.js";
import { operationsOf } from "../operations.js";
import { printJson, printTable } from "../output.js";

export function registerRuntimeInfo(program: Command): void {
  program
    .command("runtime")
    .description("Show the sandbox runtimes, which this host can use, and why not")
    .option("--json", "print as JSON")
    .addHelpText(
      "after",
      "\nAsked of the side that creates sandboxes: root's forage-ctl itself, or the daemon for the configured user\n(a user's own process cannot start a container, so asking it would say nothing is available).",
    )
    .action(async (options: { json?: boolean }) => {
      const runtimes = await runtimesSeen(program);
      if (options.json === true)
        return printJson({ detected: runtimes.find((r) => r.available)?.name ?? null, runtimes });
      printTable(
        ["RUNTIME", "AVAILABLE", "DESCRIPTION / REASON"],
        runtimes.map((r) => [r.name, r.available ? "yes" : "no", r.available ? r.description : r.reason]),
      );
      const detected = runtimes.find((r) => r.available);
      process.stdout.write(
        detected === undefined ? "\nno runtime is available on this host\n" : `\ndetected: ${detected.name}\n`,
      );
    });
}

/**
 * The runtimes as the side that creates sandboxes sees them. With no settings anywhere there is no
 * daemon to ask either (it serves a settings file): this process looks for itself, and says for
 * each runtime that needs root when it is not.
 */
async function runtimesSeen(program: Command): Promise<RuntimeInfo[]> {
  try {
    return await (await operationsOf(program)).runtimes({});
  } catch (error) {
    if (error instanceof NoSettingsError) return detectRuntimes();
    throw error;
  }
}
