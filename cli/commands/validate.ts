import type { Command } from "commander";
import { loadSettingsFromCli } from "../load-model.js";
import { printJson } from "../output.js";

export function registerValidate(program: Command): void {
  program
    .command("validate")
    .description(
      "Check the config (or a generated forage.json) and report every problem at once (file:line:col: path: message)",
    )
    .argument(
      "[config]",
      "config file or generated forage.json (default: the file up would use; see forage-ctl --help)",
    )
    .option("--json", "print the result as JSON")
    .addHelpText(
      "after",
      "\nIt reads what up reads, the same way: a config (.ts, .yaml, .json) or the forage.json that\n" +
        "forage-ctl generate writes (the NixOS module installs it as /etc/forage/forage.json).\n\n" +
        "Exit status: 0 when valid, 6 when the config has errors (all of them are printed).",
    )
    .action(async (config: string | undefined, options: { json?: boolean }) => {
      const { settings, shown } = await loadSettingsFromCli(config ?? program.opts<{ config?: string }>().config);
      const templates = settings.templates.map((t) => t.name);
      if (options.json === true) printJson({ valid: true, config: shown, templates });
      else
        process.stdout.write(
          `${shown}: valid (${templates.length} template${templates.length === 1 ? "" : "s"}: ${templates.join(", ")})\n`,
        );
    });
}
