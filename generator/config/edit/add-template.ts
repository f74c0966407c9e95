import { IndentationText, Node, Project, SyntaxKind, type ObjectLiteralExpression } from "ts-morph";
import { dropUndefined } from "../../lib/drop-undefined.js";
import { isMap, isScalar, parseDocument, stringify } from "yaml";
import { ConfigError } from "../diagnostic.js";

/** A template to add: it extends an existing one and may carry a description. */
export interface NewTemplate {
  name: string;
  extends: string;
  description?: string;
}

/**
 * Adds a template to a `forage.config.ts` source, touching nothing but the `templates` object:
 * the user's formatting and comments stay as they were. The config must be
 * `export default defineConfig({ … })` or `export default { … }` with an object-literal `templates`.
 */
export function addTemplateToTypescript(file: string, text: string, entry: NewTemplate): string {
  const project = new Project({
    useInMemoryFileSystem: true,
    manipulationSettings: { indentationText: detectIndentation(text) },
  });
  const source = project.createSourceFile("forage.config.ts", text);
  const templates = templatesObject(file, source.getExportAssignment((e) => !e.isExportEquals())?.getExpression());
  // JSON string literals are valid TypeScript string literals, so user text cannot become code.
  const fields = [`extends: ${JSON.stringify(entry.extends)}`];
  if (entry.description !== undefined) fields.push(`description: ${JSON.stringify(entry.description)}`);
  templates.addPropertyAssignment({ name: JSON.stringify(entry.name), initializer: `{ ${fields.join(", ")} }` });
  return source.getFullText();
}

/** The file's own indentation unit, so an added entry lines up with its siblings. */
function detectIndentation(text: string): IndentationText {
  const indent = /^([ \t]+)\S/m.exec(text)?.[1] ?? "  ";
  if (indent.startsWith("\t")) return IndentationText.Tab;
  return indent.length >= 4 ? IndentationText.FourSpaces : IndentationText.TwoSpaces;
}

function templatesObject(file: string, exported: Node | undefined): ObjectLiteralExpression {
  const config = Node.isCallExpression(exported) ? exported.getArguments()[0] : exported;
  const fail = (message: string): never => {
    throw new ConfigError([{ file, path: ["templates"], message }]);
  };
  if (!Node.isObjectLiteralExpression(config)) {
    return fail("cannot edit: expected `export default defineConfig({ … })` with an object literal");
  }
  const property = config.getProperty("templates");
  const initializer = Node.isPropertyAssignment(property) ? property.getInitializer() : undefined;
  if (initializer === undefined || initializer.getKind() !== SyntaxKind.ObjectLiteralExpression) {
    return fail("cannot edit: `templates` must be written as an object literal in the default export");
  }
  return initializer as ObjectLiteralExpression;
}

/**
 * Adds a template to a YAML config by inserting its text after the last entry of a block-style
 * `templates` map: every other byte of the file (comments, flow styles, spacing) stays as it was.
 * A flow-style `templates: { … }` is re-serialised by the YAML library instead.
 */
export function addTemplateToYaml(text: string, entry: NewTemplate): string {
  const doc = parseDocument(text);
  const templates = doc.get("templates", true);
  const firstKey = isMap(templates) && !templates.flow ? templates.items[0]?.key : undefined;
  if (!isMap(templates) || !isScalar(firstKey) || !firstKey.range || !templates.range) {
    doc.setIn(["templates", entry.name], doc.createNode(templateData(entry)));
    return doc.toString();
  }
  const keyOffset = firstKey.range[0];
  const indent = " ".repeat(keyOffset - text.lastIndexOf("\n", keyOffset - 1) - 1);
  const snippet = stringify({ [entry.name]: templateData(entry) })
    .split("\n")
    .map((line) => (line === "" ? line : indent + line))
    .join("\n");
  const end = templates.range[1];
  const separator = text[end - 1] === "\n" ? "" : "\n";
  return text.slice(0, end) + separator + snippet + text.slice(end);
}

/** Adds a template to a JSON config (JSON has no comments to keep; two-space indentation). */
export function addTemplateToJson(text: string, entry: NewTemplate): string {
  const config = JSON.parse(text) as { templates: Record<string, unknown> };
  config.templates[entry.name] = templateData(entry);
  return `${JSON.stringify(config, null, 2)}\n`;
}

function templateData(entry: NewTemplate): Record<string, string> {
  return { extends: entry.extends, ...dropUndefined({ description: entry.description }) };
}
