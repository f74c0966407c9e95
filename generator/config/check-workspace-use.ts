import { inherits, templateNames, type FlatTemplate } from "./proxied-agents.js";
import type { Config } from "./schema/config.js";
import type { SchemaProblem } from "./zod-issues.js";

/**
 * What only a writable workspace reads, written where readOnlyWorkspace makes every workspace
 * read-only: `workspace.unprotected` (protected paths made writable) and a mount's `readOnly:
 * false`. Refused at the key with the fix. A value written in a template counts as read when it
 * reaches, unchanged, a template (itself or one extending it) that leaves readOnlyWorkspace off.
 * Runs on sound `extends` (flattened templates).
 */
export function checkWorkspaceUse(config: Config, flat: readonly FlatTemplate[]): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  for (const [templateName, template] of Object.entries(config.templates)) {
    const unprotected = template.workspace?.unprotected;
    if (unprotected !== undefined && unprotected.length > 0) {
      const reached = flat.filter(
        (each) => each.template.workspace?.unprotected === unprotected && inherits(config, each.name, templateName),
      );
      if (reached.every((each) => each.template.readOnlyWorkspace === true)) {
        problems.push({
          path: ["templates", templateName, "workspace", "unprotected"],
          atKey: true,
          message: `unprotected lets the agent write protected paths of a writable workspace, and readOnlyWorkspace makes every workspace of ${templateNames(reached)} read-only, so nothing reads it: remove unprotected, or readOnlyWorkspace`,
        });
      }
    }
    for (const [mountName, mount] of Object.entries(template.workspace?.mounts ?? {})) {
      if (mount.readOnly !== false) continue;
      const reached = flat.filter(
        (each) => each.template.workspace?.mounts?.[mountName] === mount && inherits(config, each.name, templateName),
      );
      if (!reached.every((each) => each.template.readOnlyWorkspace === true)) continue;
      problems.push({
        path: ["templates", templateName, "workspace", "mounts", mountName, "readOnly"],
        atKey: true,
        message: `readOnly: false asks for a writable mount, and readOnlyWorkspace makes every workspace of ${templateNames(reached)} read-only, so nothing reads it: remove readOnly, or readOnlyWorkspace`,
      });
    }
  }
  return problems;
}
