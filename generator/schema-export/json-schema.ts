import { z } from "zod";
import { configSchema } from "../config/schema/config.js";

/** The config's JSON Schema (input side, so optional fields with defaults are optional). */
export function configJsonSchema(): unknown {
  return z.toJSONSchema(configSchema, {
    io: "input",
    // Our own metadata keys (Nix option mapping: nixType, nixModule, nixCoerceTo, …) are for the
    // generator, not for editors.
    override: (context) => {
      const schema = context.jsonSchema as Record<string, unknown>;
      for (const key of Object.keys(schema)) if (key.startsWith("nix")) delete schema[key];
    },
  });
}
