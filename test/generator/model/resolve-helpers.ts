import type { ConfigInput } from "../../../generator/config/schema/config.js";
import type { TemplateInput } from "../../../generator/config/schema/template.js";
import { resolveModel } from "../../../generator/model/resolve.js";
import type { TemplateModel } from "../../../generator/model/model.js";
import { parseConfig } from "../config/parse-config.js";

/** Validates `input` with the real schema and rewrites reference spellings (as loadConfig does), and resolves it. */
export function model(input: ConfigInput) {
  return resolveModel(parseConfig(input), "forage.yaml");
}

/** Resolves a config holding only `templates` and returns the template called `name`. */
export function template(
  templates: Record<string, TemplateInput>,
  name: string,
  secrets: Record<string, string> = {},
): TemplateModel {
  const found = model({ user: "alice", secrets, templates }).templates.find((t) => t.name === name);
  if (found === undefined) throw new Error(`template ${name} not in the model`);
  return found;
}
