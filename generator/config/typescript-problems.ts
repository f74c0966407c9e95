import { ts } from "ts-morph";
import type { Diagnostic } from "./diagnostic.js";

/**
 * Every syntax error of a TypeScript config, positioned, found by TypeScript's own parser before
 * the file runs: running it would stop at the first, and the loader's message has no position
 * a reader can rely on. Types are not checked (that is the editor's job; the schema checks values).
 * @example syntaxProblems("forage.config.ts", "export default { a: 1 ;")
 * // [{ file: "forage.config.ts", line: 1, column: 23, path: [], message: "syntax error: '}' expected." }]
 */
export function syntaxProblems(file: string, text: string): Diagnostic[] {
  const output = ts.transpileModule(text, {
    fileName: file,
    reportDiagnostics: true,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  return (output.diagnostics ?? []).map((diagnostic) => {
    const at = diagnostic.file?.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
    return {
      file,
      ...(at === undefined ? {} : { line: at.line + 1, column: at.character + 1 }),
      path: [],
      message: `syntax error: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, " ")}`,
    };
  });
}

/**
 * What went wrong when the config ran (it threw, or imported what is not there), at the place in
 * the config the error names: the first frame of its stack in that file, else the position the
 * loader appends to its message (`\n /abs/forage.config.ts:9:1`).
 * @example runProblem("forage.config.ts", "/p/forage.config.ts", new ReferenceError("x is not defined"))
 * // { file: "forage.config.ts", line: 4, column: 9, path: [], message: "running the config failed: ReferenceError: x is not defined" }
 */
export function runProblem(file: string, absolutePath: string, error: unknown): Diagnostic {
  const text = error instanceof Error ? `${error.message}\n${error.stack ?? ""}` : String(error);
  const [first = "", ...rest] = text.split("\n");
  const name = error instanceof Error && !first.startsWith(error.name) ? `${error.name}: ` : "";
  const position = rest.map((line) => positionIn(line, absolutePath)).find((found) => found !== undefined);
  return { file, ...position, path: [], message: `running the config failed: ${name}${first.trim()}` };
}

function positionIn(line: string, absolutePath: string): { line: number; column: number } | undefined {
  const at = line.indexOf(`${absolutePath}:`);
  if (at < 0) return undefined;
  const match = /^:(\d+):(\d+)/.exec(line.slice(at + absolutePath.length));
  return match === null ? undefined : { line: Number(match[1]), column: Number(match[2]) };
}
