import type { ConfigInput } from "./schema/config.js";

/**
 * Gives a `forage.config.ts` full typing and editor completion; returns its argument unchanged.
 * Validation happens when forage-ctl loads the file, with the same schema.
 *
 * @example
 * export default defineConfig({
 *   user: "alice",
 *   templates: { claude: { agents: { claude: { package: "claude-code", hostConfigDir: "~/.claude" } } } },
 * });
 */
export function defineConfig(config: ConfigInput): ConfigInput {
  return config;
}
