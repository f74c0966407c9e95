import type { Command } from "commander";
import { loadSettingsFromCli } from "../load-model.js";
import { printJson, printTable } from "../output.js";

export function registerTemplates(program: Command): void {
  program
    .command("templates")
    .description("List the templates up can use: of the config, or of a generated forage.json")
    .option("--json", "print the templates as JSON")
    .addHelpText(
      "after",
      "\nThe file is the one up would use (--config, $FORAGE_CONFIG, ./forage.config.ts, …: see forage-ctl --help).",
    )
    .action(async (options: { json?: boolean }) => {
      const model = (await loadSettingsFromCli(program.opts<{ config?: string }>().config)).settings;
      if (options.json === true) {
        printJson(
          model.templates.map((t) => ({
            name: t.name,
            description: t.description,
            agents: t.agents.map((a) => a.name),
            network: t.network.mode,
            allow: t.network.allow.map((rule) => rule.entry),
          })),
        );
        return;
      }
      printTable(
        ["TEMPLATE", "AGENTS", "NETWORK", "DESCRIPTION"],
        model.templates.map((t) => [
          t.name,
          t.agents.map((a) => a.name).join(",") || "-",
          t.network.mode,
          t.description,
        ]),
      );
    });
}
