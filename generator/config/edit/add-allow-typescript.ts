import {
  Node,
  Project,
  QuoteKind,
  SyntaxKind,
  type ArrayLiteralExpression,
  type ObjectLiteralExpression,
} from "ts-morph";
import {
  AllowEditRefused,
  inheritedRefusal,
  modeNote,
  restrictedMode,
  type AllowEdit,
  type AllowEditResult,
} from "./allow-edit.js";

/**
 * Adds entries to a template's `network.allow` in a `forage.config.ts`, through ts-morph: only
 * the nodes of that list (or of the template's `network`) change; the rest of the file, comments
 * and formatting included, stays as it was. The template must be written literally:
 * `export default defineConfig({ templates: { name: { … } } })` (or `export default { … }`),
 * with `network` a string or an object literal whose `allow` is an array literal. Anything
 * computed (a variable, a spread, a call) is refused with the reason, so the caller can print
 * the change instead.
 */
export function addAllowToTypescript(text: string, edit: AllowEdit): AllowEditResult {
  const project = new Project({ useInMemoryFileSystem: true });
  const source = project.createSourceFile("forage.config.ts", text);
  const template = templateObject(
    edit.template,
    source.getExportAssignment((each) => !each.isExportEquals())?.getExpression(),
  );
  const quote =
    template.getFirstDescendantByKind(SyntaxKind.StringLiteral)?.getQuoteKind() === QuoteKind.Single ? "'" : '"';
  // Entries are host names (letters, digits, '.', '-', '*'): quoted, they cannot become code.
  const items = edit.entries.map((entry) => `${quote}${entry}${quote}`);
  const notes: string[] = [];
  const splices = ((): Splice[] => {
    // A list written here (network.allow, allowedHosts) replaces an inherited one, whatever else the template writes.
    if (edit.inheritsAllow) throw inheritedRefusal(edit);
    const legacy = ownProperty(template, "allowedHosts");
    if (legacy !== undefined)
      return appendElements(text, arrayOf(legacy, `template "${edit.template}": allowedHosts`), items);
    const network = ownProperty(template, "network");
    const created = `{ mode: ${quote}${restrictedMode}${quote}, allow: [${items.join(", ")}] }`;
    if (network === undefined) {
      if (template.getProperties().some((property) => Node.isSpreadAssignment(property))) {
        throw new AllowEditRefused(
          `template "${edit.template}" spreads in another object and has no network of its own: a network written here could replace one from the spread`,
        );
      }
      notes.push(`created network: { mode: "${restrictedMode}", allow: [...] }`);
      return addProperty(text, template, template.getProperties().at(-1), `network: ${created}`);
    }
    if (Node.isStringLiteral(network) || Node.isNoSubstitutionTemplateLiteral(network)) {
      if (network.getLiteralValue() !== restrictedMode) notes.push(modeNote(network.getLiteralValue()));
      return [{ start: network.getStart(), end: network.getEnd(), text: created }];
    }
    if (Node.isObjectLiteralExpression(network)) return networkSplices(text, network, edit, items, quote, notes);
    throw new AllowEditRefused(
      `template "${edit.template}": network is computed (${network.getKindName()}), not written as a string or an object literal`,
    );
  })();
  let result = text;
  for (const splice of splices.sort((a, b) => b.start - a.start))
    result = result.slice(0, splice.start) + splice.text + result.slice(splice.end);
  return { text: result, notes };
}

/** One text insertion or replacement at an offset of the original file. */
interface Splice {
  start: number;
  end: number;
  text: string;
}

function networkSplices(
  text: string,
  network: ObjectLiteralExpression,
  edit: AllowEdit,
  items: string[],
  quote: string,
  notes: string[],
): Splice[] {
  const mode = ownProperty(network, "mode");
  if (mode === undefined || !(Node.isStringLiteral(mode) || Node.isNoSubstitutionTemplateLiteral(mode))) {
    throw new AllowEditRefused(`template "${edit.template}": network.mode is not written as a string literal`);
  }
  const splices: Splice[] = [];
  if (mode.getLiteralValue() !== restrictedMode) {
    notes.push(modeNote(mode.getLiteralValue()));
    splices.push({ start: mode.getStart(), end: mode.getEnd(), text: `${quote}${restrictedMode}${quote}` });
  }
  const allow = ownProperty(network, "allow");
  if (allow === undefined && network.getProperties().some((property) => Node.isSpreadAssignment(property))) {
    throw new AllowEditRefused(
      `template "${edit.template}": network spreads in another object and writes no allow of its own: an allow written here would replace the spread's`,
    );
  }
  if (allow !== undefined)
    splices.push(...appendElements(text, arrayOf(allow, `template "${edit.template}": network.allow`), items));
  else splices.push(...addProperty(text, network, mode.getParentOrThrow(), `allow: [${items.join(", ")}]`));
  return splices;
}

/** Appends to an array literal after its last element: on lines of their own when the list is written one entry per line. */
function appendElements(text: string, array: ArrayLiteralExpression, items: string[]): Splice[] {
  const elements = array.getElements();
  const last = elements.at(-1);
  if (last === undefined) return [{ start: array.getStart() + 1, end: array.getStart() + 1, text: items.join(", ") }];
  const first = elements[0] ?? last;
  if (!text.slice(array.getStart(), first.getStart()).includes("\n"))
    return [{ start: last.getEnd(), end: last.getEnd(), text: items.map((item) => `, ${item}`).join("") }];
  return afterOnItsLine(text, last, columnOf(text, first.getStart()), items, true);
}

/** Adds a property to an object literal after `after` (its last, or `mode`), keeping the object's layout and trailing comma. */
function addProperty(
  text: string,
  object: ObjectLiteralExpression,
  after: Node | undefined,
  property: string,
): Splice[] {
  if (after === undefined) return [{ start: object.getStart() + 1, end: object.getStart() + 1, text: ` ${property} ` }];
  const first = object.getProperties()[0] ?? after;
  const isLast = object.getProperties().at(-1) === after;
  if (!text.slice(object.getStart(), first.getStart()).includes("\n")) {
    const comma = /^\s*,/.exec(text.slice(after.getEnd()));
    if (comma === null) return [{ start: after.getEnd(), end: after.getEnd(), text: `, ${property}` }];
    const start = after.getEnd() + comma[0].length;
    return [{ start, end: start, text: ` ${property}${isLast ? "" : ","}` }];
  }
  return afterOnItsLine(text, after, columnOf(text, first.getStart()), [property], isLast);
}

/**
 * New lines after `node` in a list written one per line: after its comma and any comment ending
 * its line (which stays with it). A list with a trailing comma keeps one; without one, a comma
 * is added after `node`.
 */
function afterOnItsLine(text: string, node: Node, indent: string, added: string[], isLast: boolean): Splice[] {
  const comma = /^[ \t]*,/.exec(text.slice(node.getEnd()));
  const afterComma = node.getEnd() + (comma?.[0].length ?? 0);
  const rest = /^[ \t]*(\/\/[^\n]*)?(?=\n)/.exec(text.slice(afterComma));
  const lineEnd = rest === null ? afterComma : afterComma + rest[0].length;
  const trailing = comma !== null && isLast;
  const lines = added
    .map((item, index) => `\n${indent}${item}${index < added.length - 1 || trailing || !isLast ? "," : ""}`)
    .join("");
  const splices: Splice[] = [{ start: lineEnd, end: lineEnd, text: lines }];
  if (comma === null) splices.push({ start: node.getEnd(), end: node.getEnd(), text: "," });
  return splices;
}

function columnOf(text: string, offset: number): string {
  return " ".repeat(offset - text.lastIndexOf("\n", offset - 1) - 1);
}

function arrayOf(node: Node, what: string): ArrayLiteralExpression {
  if (!Node.isArrayLiteralExpression(node))
    throw new AllowEditRefused(`${what} is computed (${node.getKindName()}), not written as an array literal`);
  return node;
}

function templateObject(name: string, exported: Node | undefined): ObjectLiteralExpression {
  const config = Node.isCallExpression(exported) ? exported.getArguments()[0] : exported;
  if (!Node.isObjectLiteralExpression(config))
    throw new AllowEditRefused("expected `export default defineConfig({ … })` with an object literal");
  const templates = ownProperty(config, "templates");
  if (!Node.isObjectLiteralExpression(templates))
    throw new AllowEditRefused("`templates` is not written as an object literal in the default export");
  const template = ownProperty(templates, name);
  if (!Node.isObjectLiteralExpression(template))
    throw new AllowEditRefused(
      `template "${name}" is not written as an object literal under templates (it may be computed or spread in)`,
    );
  return template;
}

/** The initializer of a property written literally in this object (`name: …` or `"name": …`), if any. */
function ownProperty(object: ObjectLiteralExpression, name: string): Node | undefined {
  for (const property of object.getProperties()) {
    if (propertyName(property) !== name) continue;
    if (Node.isPropertyAssignment(property)) return property.getInitializerOrThrow();
    throw new AllowEditRefused(`${name} is not written as \`${name}: …\``);
  }
  return undefined;
}

function propertyName(property: Node): string | undefined {
  if (!Node.isPropertyAssignment(property) && !Node.isShorthandPropertyAssignment(property)) return undefined;
  const nameNode = property.getNameNode();
  if (Node.isStringLiteral(nameNode) || Node.isNoSubstitutionTemplateLiteral(nameNode))
    return nameNode.getLiteralValue();
  return nameNode.getText();
}
