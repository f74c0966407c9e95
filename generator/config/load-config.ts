import { readFile } from "node:fs/promises";
import { extname, relative, resolve } from "node:path";
import { checkReferences } from "./check-references.js";
import { effectNotes } from "./effect-notes.js";
import { flattenAll } from "./proxied-agents.js";
import { checkExtends, extendsViewOf } from "./check-extends.js";
import { ConfigError, formatPath, sortDiagnostics, type Diagnostic } from "./diagnostic.js";
import { parseJsonDocument } from "./parse-json.js";
import { parseYamlDocument } from "./parse-yaml.js";
import { adoptReferenceSpellings } from "./reference-spellings.js";
import { configSchema, type Config } from "./schema/config.js";
import type { SourceDocument } from "./source-document.js";
import { problemsFromIssues, type SchemaProblem } from "./zod-issues.js";

export interface LoadedConfig {
  /** The path as the user gave it (relative to cwd), used in messages and generated headers. */
  file: string;
  /** In Forage's own spelling: reference spellings are already rewritten. */
  config: Config;
  /** What the user should hear although the config loaded (reference spellings used, options with no effect), located and sorted; the CLI prints them on stderr. */
  notes: Diagnostic[];
}

/**
 * Loads a config by extension (.ts/.mts, .yaml/.yml, .json), validates it with the schema and the
 * cross-reference checks, and throws a ConfigError listing every problem with its position.
 */
export async function loadConfig(path: string, cwd = process.cwd()): Promise<LoadedConfig> {
  const absolute = resolve(cwd, path);
  const file = displayPath(absolute, cwd);
  const document = await parseDocument(file, absolute);
  const parsed = configSchema.safeParse(document.data);
  if (!parsed.success)
    throw new ConfigError(
      locate(document, withExtendsProblems(document.data, problemsFromIssues(parsed.error.issues))),
    );
  const adopted = adoptReferenceSpellings(parsed.data);
  const notes = locate(document, adopted.notes).map((note) => ({ ...note, severity: "note" as const }));
  const referenceProblems = checkReferences(adopted.config);
  if (referenceProblems.length > 0) throw new ConfigError(locate(document, referenceProblems), notes);
  // Options that change nothing where they are written (and are not refused: see effectNotes).
  const effects = locate(document, effectNotes(adopted.config, flattenAll(adopted.config))).map((note) => ({
    ...note,
    severity: "note" as const,
  }));
  return { file, config: adopted.config, notes: sortDiagnostics([...notes, ...effects]) };
}

/**
 * The schema's problems and those of `extends` (unknown parents, cycles) in one list: a user
 * fixing a typo in a field should not meet the misspelled parent only on the next run. A path
 * the schema already reports on is not reported twice.
 */
function withExtendsProblems(data: unknown, schema: SchemaProblem[]): SchemaProblem[] {
  const reported = new Set(schema.map((problem) => formatPath(problem.path)));
  return [...schema, ...checkExtends(extendsViewOf(data)).filter((problem) => !reported.has(formatPath(problem.path)))];
}

async function parseDocument(file: string, absolute: string): Promise<SourceDocument> {
  const extension = extname(absolute);
  if (extension === ".ts" || extension === ".mts") {
    // Loaded on demand: the TypeScript toolchain (jiti, ts-morph) costs most of the CLI's start-up.
    const { parseTypescriptDocument } = await import("./parse-typescript.js");
    return parseTypescriptDocument(file, absolute);
  }
  if (extension !== ".yaml" && extension !== ".yml" && extension !== ".json") {
    throw new ConfigError([{ file, path: [], message: "unknown config type: use .ts, .yaml, .yml or .json" }]);
  }
  let text: string;
  try {
    text = await readFile(absolute, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "file not found" : String(error);
    throw new ConfigError([{ file, path: [], message: `cannot read config: ${reason}` }]);
  }
  return extension === ".json" ? parseJsonDocument(file, text) : parseYamlDocument(file, text);
}

function locate(document: SourceDocument, problems: SchemaProblem[]): Diagnostic[] {
  return sortDiagnostics(
    problems.map((problem) => ({
      file: document.file,
      ...document.locate(problem.path, problem.atKey === true),
      path: problem.path,
      message: problem.message,
    })),
  );
}

/** The path as messages show it: relative to `cwd` when inside it, else absolute. */
export function displayPath(absolute: string, cwd: string): string {
  const rel = relative(cwd, absolute);
  // From "/" (the daemon's directory), a relative path is the absolute one without its slash.
  return rel.startsWith("..") || cwd === "/" ? absolute : rel;
}
