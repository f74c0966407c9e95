import type { Command } from "commander";
import { loadModelFromCli } from "../load-model.js";
import { printJson } from "../output.js";

export function registerValidate(program: Command): void {
  program
    .command("validate")
    .description("Check the config and report every problem at once (file:line:col: path: message)")
    .argument("[config]", "config file (default: ./forage.config.ts, ./forage.yaml or ./forage.json)")
    .option("--json", "print the result as JSON")
    .addHelpText("after", "\nExit status: 0 when valid, 6 when the config has errors (all of them are printed).")
    .action(async (config: string | undefined, options: { json?: boolean }) => {
      const model = await loadModelFromCli(config ?? program.opts<{ config?: string }>().config);
      const templates = model.templates.map((t) => t.name);
      if (options.json === true) printJson({ valid: true, config: model.source, templates });
      else process.stdout.write(`${model.source}: valid (${templates.length} template${templates.length === 1 ? "" : "s"}: ${templates.join(", ")})\n`);
    });
}
