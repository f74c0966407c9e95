import { ConfigError } from "./diagnostic.js";
import { parseYamlDocument } from "./parse-yaml.js";
import type { SourceDocument } from "./source-document.js";

/**
 * Parses strict JSON first (so YAML-only syntax is not silently accepted in a .json file), then
 * re-reads it with the YAML parser for node positions.
 */
export function parseJsonDocument(file: string, text: string): SourceDocument {
  try {
    JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const offset = /at position (\d+)/.exec(message)?.[1];
    const position = offset === undefined ? { line: 1, column: 1 } : lineColumnAt(text, Number(offset));
    throw new ConfigError([
      { file, ...position, path: [], message: `invalid JSON: ${message.replace(/ in JSON at position \d+.*$/, "")}` },
    ]);
  }
  return parseYamlDocument(file, text);
}

function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - before.lastIndexOf("\n");
  return { line, column };
}
