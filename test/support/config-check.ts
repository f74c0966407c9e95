import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { ConfigError, formatDiagnostic } from "../../generator/config/diagnostic.js";
import { loadConfig } from "../../generator/config/load-config.js";
import type { Snippet } from "./readme-snippets.js";

/**
 * What the real loader says of `text` as the config file `name` (forage.yaml, forage.json,
 * forage.config.ts): its errors, or its notes (an option written where it has no effect is as
 * wrong in the docs as an error), formatted as the CLI prints them. Empty: it loads clean.
 */
export async function configProblems(name: string, text: string): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), "forage-config-check-"));
  try {
    await writeFile(join(dir, name), text);
    const loaded = await loadConfig(name, dir);
    return loaded.notes.map(formatDiagnostic);
  } catch (error) {
    if (error instanceof ConfigError) return [...error.diagnostics, ...error.notes].map(formatDiagnostic);
    throw error;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The least a whole config needs besides what a fragment shows: its user, and a template when it has none. */
const fragmentBase = { user: "alice" };
const baseTemplates = { demo: {} };

/** A fragment placed at `at` and merged into the base: the whole config it is checked inside. */
export function wholeConfigOf(fragment: unknown, at: readonly string[]): Record<string, unknown> {
  const placed = at.reduceRight<unknown>((value, key) => ({ [key]: value }), fragment);
  const whole = merge(fragmentBase, placed);
  return "templates" in whole ? whole : { ...whole, templates: baseTemplates };
}

function merge(base: Record<string, unknown>, over: unknown): Record<string, unknown> {
  if (!isRecord(over)) throw new Error("a config fragment must be a mapping");
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const under = merged[key];
    merged[key] = isRecord(under) && isRecord(value) ? merge(under, value) : value;
  }
  return merged;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** What the loader says of a README snippet: as a whole config in its own language, or (a fragment) inside the whole config it belongs to. */
export async function snippetProblems(snippet: Snippet): Promise<string[]> {
  const typescript = snippet.language === "ts" || snippet.language === "typescript";
  if (snippet.check.kind === "whole") {
    const name = typescript ? "forage.config.ts" : snippet.language === "json" ? "forage.json" : "forage.yaml";
    return configProblems(name, snippet.text);
  }
  if (snippet.check.kind === "none") return [];
  // A TypeScript fragment would have to be run to be read: show fragments as YAML or JSON.
  if (typescript) return ["a TypeScript block cannot be a fragment: write it whole, or as YAML"];
  return configProblems("forage.json", JSON.stringify(wholeConfigOf(parse(snippet.text), snippet.check.at), null, 2));
}
