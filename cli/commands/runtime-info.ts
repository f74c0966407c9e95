import type { Command } from "commander";
import { detectRuntimes } from "../../runtime/backends/registry.js";
import { printJson, printTable } from "../output.js";

export function registerRuntimeInfo(program: Command): void {
  program
    .command("runtime")
    .description("Show the sandbox runtimes, which this host can use, and why not")
    .option("--json", "print as JSON")
    .action(async (options: { json?: boolean }) => {
      const runtimes = await detectRuntimes();
      if (options.json === true) return printJson({ detected: runtimes.find((r) => r.available)?.name ?? null, runtimes });
      printTable(
        ["RUNTIME", "AVAILABLE", "DESCRIPTION / REASON"],
        runtimes.map((r) => [r.name, r.available ? "yes" : "no", r.available ? r.description : r.reason]),
      );
      const detected = runtimes.find((r) => r.available);
      process.stdout.write(detected === undefined ? "\nno runtime is available on this host\n" : `\ndetected: ${detected.name}\n`);
    });
}
