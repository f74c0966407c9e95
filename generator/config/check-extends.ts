import { parentsOf } from "./template-parents.js";
import type { SchemaProblem } from "./zod-issues.js";

/** The part of a config `extends` is checked on: each template's parents, as written. */
export interface ExtendsView {
  templates: Record<string, { extends?: string | string[] | undefined }>;
}

/**
 * `extends` names existing templates, without cycles. Runs on a schema-valid config, and also on
 * a config with schema errors (through extendsViewOf), so an unknown parent is reported in the
 * same pass as them, not after they are fixed.
 * @example checkExtends({ templates: { a: { extends: "b" } } })
 * // [{ path: ["templates", "a", "extends"], message: 'template "b" does not exist (known: a)' }]
 */
export function checkExtends(config: ExtendsView): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  for (const [name, template] of Object.entries(config.templates)) {
    parentsOf(template.extends).forEach((parent, index) => {
      const path = ["templates", name, "extends", ...(Array.isArray(template.extends) ? [index] : [])];
      if (!(parent in config.templates)) {
        problems.push({
          path,
          message: `template "${parent}" does not exist (known: ${Object.keys(config.templates).join(", ")})`,
        });
      }
    });
    const cycle = findCycle(config, name);
    if (cycle !== undefined) {
      problems.push({ path: ["templates", name, "extends"], message: `inheritance cycle: ${cycle.join(" → ")}` });
    }
  }
  return problems;
}

/**
 * The templates and their `extends` of a config the schema refused, where they are readable: a
 * template that is not an object, or an `extends` that is not a name or list of names, is the
 * schema's to report and is left out here.
 */
export function extendsViewOf(data: unknown): ExtendsView {
  const templates = isRecord(data) && isRecord(data.templates) ? data.templates : {};
  const view: ExtendsView = { templates: {} };
  for (const [name, template] of Object.entries(templates)) {
    const written = isRecord(template) ? template.extends : undefined;
    const names =
      typeof written === "string" || (Array.isArray(written) && written.every((parent) => typeof parent === "string"));
    view.templates[name] = names ? { extends: written as string | string[] } : {};
  }
  return view;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function findCycle(config: ExtendsView, start: string): string[] | undefined {
  const walk = (name: string, trail: string[]): string[] | undefined => {
    for (const parent of parentsOf(config.templates[name]?.extends)) {
      if (parent === start) return [...trail, parent];
      if (trail.includes(parent) || !(parent in config.templates)) continue;
      const found = walk(parent, [...trail, parent]);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return walk(start, [start]);
}
