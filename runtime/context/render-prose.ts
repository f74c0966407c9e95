import type { TemplateDelegate } from "handlebars";

/** Compiled templates by their source: the daemon renders every sandbox's context with the same few. */
const compiled = new Map<string, TemplateDelegate>();

/**
 * Renders a prose template (templates/) in an isolated Handlebars environment, strict (a missing
 * field is an error, not an empty string) and without HTML escaping (the output is Markdown or
 * text, never HTML) — ARCHITECTURE.md rule 1. Each source is compiled once per process.
 */
export async function renderProse(source: string, values: object): Promise<string> {
  let template = compiled.get(source);
  if (template === undefined) {
    const { default: Handlebars } = await import("handlebars");
    template = Handlebars.create().compile(source, { strict: true, noEscape: true });
    compiled.set(source, template);
  }
  return template(values);
}
