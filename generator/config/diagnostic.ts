import { UserError } from "../lib/user-error.js";

/** One problem found in a config file, located as precisely as the format allows. */
export interface Diagnostic {
  file: string;
  /** 1-based; absent when the format gives no position (TypeScript configs). */
  line?: number;
  column?: number;
  /** Path inside the config, e.g. ["templates", "claude", "network"]. */
  path: (string | number)[];
  message: string;
  /** "note": worth saying, but the config loads (e.g. a reference spelling was used). Absent: an error. */
  severity?: "note";
}

/**
 * Thrown when a config cannot be loaded; carries every problem found, not just the first. Its
 * message also shows the notes found so far, in position order, since an error may name an
 * option by its new spelling where the file uses the reference's.
 */
export class ConfigError extends UserError {
  override name = "ConfigError";
  constructor(
    readonly diagnostics: Diagnostic[],
    readonly notes: Diagnostic[] = [],
  ) {
    super(
      (notes.length === 0 ? diagnostics : sortDiagnostics([...diagnostics, ...notes])).map(formatDiagnostic).join("\n"),
      "config",
    );
  }

  /** Every problem on its own line (they name their files), then how many there were. */
  override report(program: string): string {
    const count = this.diagnostics.length;
    return `${this.message}\n${program}: ${count} problem${count === 1 ? "" : "s"} in the config\n`;
  }
}

/** `templates.claude.agents["my agent"]` — the path as a user would write it in TypeScript. */
export function formatPath(path: readonly (string | number)[]): string {
  if (path.length === 0) return "(root)";
  return path
    .map((part, index) => {
      if (typeof part === "number") return `[${part}]`;
      if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(part)) return index === 0 ? part : `.${part}`;
      return `[${JSON.stringify(part)}]`;
    })
    .join("");
}

/** `file:line:col: path: message`, or `file: path: message` without a position; notes say `note: `. */
export function formatDiagnostic(d: Diagnostic): string {
  const where = d.line === undefined ? d.file : `${d.file}:${d.line}:${d.column ?? 1}`;
  return `${where}: ${formatPath(d.path)}: ${d.severity === "note" ? "note: " : ""}${d.message}`;
}

/** Sorts by file, then position, then path, so output is stable across runs. */
export function sortDiagnostics(diagnostics: Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort(
    (a, b) =>
      a.file.localeCompare(b.file) ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.column ?? 0) - (b.column ?? 0) ||
      formatPath(a.path).localeCompare(formatPath(b.path)) ||
      a.message.localeCompare(b.message),
  );
}
