/**
 * Renders a prose template (templates/) in an isolated Handlebars environment, strict (a missing
 * field is an error, not an empty string) and without HTML escaping (the output is Markdown or
 * text, never HTML) — DESIGN rule 1.
 */
export async function renderProse(source: string, values: object): Promise<string> {
  const { default: Handlebars } = await import("handlebars");
  const handlebars = Handlebars.create();
  return handlebars.compile(source, { strict: true, noEscape: true })(values);
}
