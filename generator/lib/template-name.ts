// Without zod on purpose: the CLI's light paths (a command through the daemon) check names with it.

/**
 * The rule for template, agent and mount names, unanchored, for patterns that embed a name
 * (`-r NAME=PATH`, the proxy's `/<agent>/…` paths). Everything else uses templateNamePattern.
 */
export const templateNameSource = "[a-z][a-z0-9-]{0,31}";

/**
 * Template, agent and mount names: they become Nix attribute names, file names, wrapper binary
 * names and URL path segments, so the config, the daemon, the state files and the proxy check one
 * rule. @example templateNamePattern.test("claude-restricted") // true
 */
export const templateNamePattern = new RegExp(`^${templateNameSource}$`);
