/** Public API of the `forage` package for `forage.config.ts` files. */
export { defineConfig } from "./config/define-config.js";
export type { ConfigInput, Config } from "./config/schema/config.js";
export type { TemplateInput } from "./config/schema/template.js";
export type { AgentInput } from "./config/schema/agent.js";
