import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from "yaml";
import { ConfigError, type Diagnostic } from "./diagnostic.js";
import type { SourceDocument } from "./source-document.js";

/**
 * Parses YAML (and JSON, which the YAML 1.2 parser reads as a subset) keeping node positions so
 * schema errors can be reported as `file:line:col`. Duplicate keys are errors, not last-wins.
 */
export function parseYamlDocument(file: string, text: string): SourceDocument {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const problems = [...doc.errors, ...doc.warnings];
  if (problems.length > 0) {
    const diagnostics: Diagnostic[] = problems.map((problem) => {
      const position = lineCounter.linePos(problem.pos[0]);
      return { file, line: position.line, column: position.col, path: [], message: firstLine(problem.message) };
    });
    throw new ConfigError(diagnostics);
  }
  return {
    file,
    data: doc.toJS({ maxAliasCount: 100 }) as unknown,
    locate(path, atKey = false) {
      const node = atKey ? keyNode(doc.contents, path) : nearestNode(doc.contents, path);
      const offset = node?.range?.[0];
      if (offset === undefined) return undefined;
      const position = lineCounter.linePos(offset);
      return { line: position.line, column: position.col };
    },
  };
}

function nearestNode(root: unknown, path: readonly (string | number)[]): Node | undefined {
  let current = root as Node | undefined;
  for (const part of path) {
    const next = child(current, part);
    if (next === undefined) break;
    current = next;
  }
  return current;
}

/** The key node of the last segment of `path`, else the nearest node. */
function keyNode(root: unknown, path: readonly (string | number)[]): Node | undefined {
  const parent = nearestNode(root, path.slice(0, -1));
  const last = path[path.length - 1];
  if (isMap(parent) && last !== undefined) {
    const pair = parent.items.find((item) => isScalar(item.key) && String(item.key.value) === String(last));
    if (pair !== undefined && isScalar(pair.key)) return pair.key;
  }
  return nearestNode(root, path);
}

/** The value node under `part`; for a map, the key node when the value is absent (`key:`). */
function child(node: Node | undefined, part: string | number): Node | undefined {
  if (isMap(node)) {
    const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(part));
    if (pair === undefined) return undefined;
    return (pair.value as Node | null) ?? (pair.key as Node | null) ?? undefined;
  }
  if (isSeq(node) && typeof part === "number") {
    return (node.items[part] as Node | undefined) ?? undefined;
  }
  return undefined;
}

function firstLine(message: string): string {
  return message.split("\n")[0] ?? message;
}
