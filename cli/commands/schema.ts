import type { Command } from "commander";
import { configJsonSchema } from "../../generator/schema-export/json-schema.js";
import { printJson } from "../output.js";

export function registerSchema(program: Command): void {
  program
    .command("schema")
    .description("Print the config's JSON Schema (for editor completion in forage.yaml / forage.json)")
    .addHelpText(
      "after",
      `
Example:
  forage-ctl schema > forage.schema.json
  # then, first line of forage.yaml:  # yaml-language-server: $schema=./forage.schema.json
  # or in forage.json:               "$schema": "./forage.schema.json"`,
    )
    .action(() => printJson(configJsonSchema()));
}
