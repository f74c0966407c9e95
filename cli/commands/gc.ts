import type { Command } from "commander";
import { operationsOf } from "../operations.js";
import { printJson, printTable } from "../output.js";

export function registerGc(program: Command): void {
  program
    .command("gc")
    .description("Find what interrupted or crashed operations left behind; remove it with --force")
    .option("--force", "remove what is found (default: only list it)")
    .option("--json", "print as JSON")
    .addHelpText("after", "\nStopped sandboxes are not orphans: gc never removes a sandbox you can still start.")
    .action(async (options: { force?: boolean; json?: boolean }) => {
      const orphans = await (await operationsOf(program)).gc({ force: options.force === true });
      if (options.json === true) return printJson({ removed: options.force === true, orphans });
      if (orphans.length === 0) return void process.stdout.write("nothing to clean up\n");
      printTable(
        ["KIND", "NAME", "DETAIL"],
        orphans.map((o) => [o.kind, o.name, o.detail]),
      );
      process.stdout.write(
        options.force === true
          ? `removed ${orphans.length}\n`
          : `\ndry run: run forage-ctl gc --force to remove ${orphans.length}\n`,
      );
    });
}
