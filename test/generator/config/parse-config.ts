import { adoptReferenceSpellings } from "../../../generator/config/reference-spellings.js";
import { configSchema, type Config, type ConfigInput } from "../../../generator/config/schema/config.js";

/** Validates `input` with the real schema and rewrites reference spellings, as loadConfig does (without a file). */
export function parseConfig(input: ConfigInput): Config {
  return adoptReferenceSpellings(configSchema.parse(input)).config;
}
