import { readFile, writeFile } from "node:fs/promises";
import { dropUndefined } from "../../generator/lib/drop-undefined.js";
import { extname } from "node:path";
import type { Command } from "commander";
import { loadConfig } from "../../generator/config/load-config.js";
import { templateName } from "../../generator/config/schema/names.js";
import type { NewTemplate } from "../../generator/config/edit/add-template.js";
import { loadConfigFromCli } from "../load-model.js";
import { UserError } from "../../runtime/core/errors.js";

export function registerTemplateAdd(program: Command): void {
  const template = program.command("template").description("Edit the templates of the config file in place");
  template
    .command("add")
    .description("Add a template that extends an existing one, keeping the file's formatting and comments")
    .argument("<name>", "name of the new template")
    .requiredOption("--from <template>", "existing template the new one extends")
    .option("-d, --description <text>", "description of the new template")
    .addHelpText(
      "after",
      '\nExample:\n  forage-ctl template add claude-offline --from claude -d "Claude with no network"',
    )
    .action(async (name: string, options: { from: string; description?: string }) => {
      const loaded = await loadConfigFromCli(program.opts<{ config?: string }>().config);
      if (!templateName.safeParse(name).success) {
        throw new UserError(
          `template name "${name}" must be 1-32 characters of a-z, 0-9 and '-', starting with a letter`,
          "usage",
        );
      }
      if (name in loaded.config.templates)
        throw new UserError(`${loaded.file}: template "${name}" already exists`, "config");
      if (!(options.from in loaded.config.templates)) {
        throw new UserError(
          `${loaded.file}: --from: template "${options.from}" does not exist (known: ${Object.keys(loaded.config.templates).join(", ")})`,
          "template-not-found",
        );
      }
      const entry: NewTemplate = {
        name,
        extends: options.from,
        ...dropUndefined({ description: options.description }),
      };
      const original = await readFile(loaded.file, "utf8");
      await writeFile(loaded.file, await editText(loaded.file, original, entry));
      try {
        await loadConfig(loaded.file);
      } catch (error) {
        // Leave the user's file exactly as it was when the edit does not validate.
        await writeFile(loaded.file, original);
        throw error;
      }
      process.stdout.write(`${loaded.file}: added template "${name}" (extends "${options.from}")\n`);
    });
}

async function editText(file: string, text: string, entry: NewTemplate): Promise<string> {
  // Loaded on demand: ts-morph alone takes most of a second to import.
  const { addTemplateToJson, addTemplateToTypescript, addTemplateToYaml } =
    await import("../../generator/config/edit/add-template.js");
  const extension = extname(file);
  if (extension === ".ts" || extension === ".mts") return addTemplateToTypescript(file, text, entry);
  if (extension === ".json") return addTemplateToJson(text, entry);
  return addTemplateToYaml(text, entry);
}
