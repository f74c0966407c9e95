import { formatDiagnostic, type Diagnostic } from "../generator/config/diagnostic.js";

/** Prints a value as pretty JSON on stdout (the `--json` form of every listing). */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Prints rows as an aligned table with a header; cells never contain newlines. */
export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const format = (cells: string[]): string =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join("  ")
      .trimEnd();
  process.stdout.write(`${[format(header), ...rows.map(format)].join("\n")}\n`);
}

/**
 * Prints a config's notes (`file:line:col: path: note: …`, e.g. a reference spelling used) on
 * stderr: they never fail a command and never mix into the `--json` output on stdout.
 */
export function printConfigNotes(notes: readonly Diagnostic[]): void {
  for (const note of notes) process.stderr.write(`${formatDiagnostic(note)}\n`);
}
