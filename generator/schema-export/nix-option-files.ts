import { n, renderNixFile } from "../emit/nix/index.js";
import { configSchema } from "../config/schema/config.js";
import { templateSchema } from "../config/schema/template.js";
import { optionsFromObject } from "./nix-options.js";

/** Source named in the headers of the option files. */
const schemaSource = "generator/config/schema (npm run gen:options)";

/**
 * The option declarations of `modules/options/`: `host.nix` (a function of lib returning the
 * services.forage options) and `template.nix` (the template submodule), both from the zod schema.
 */
export function nixOptionFiles(): { path: string; contents: string }[] {
  const host = n.fn(["lib"], optionsFromObject(configSchema));
  const template = n.fn(["lib"], n.attrs({ options: optionsFromObject(templateSchema) }), { ellipsis: true });
  return [
    { path: "modules/options/host.nix", contents: renderNixFile(schemaSource, host) },
    { path: "modules/options/template.nix", contents: renderNixFile(schemaSource, template) },
  ];
}
