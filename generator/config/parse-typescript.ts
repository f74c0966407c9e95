import { createRequire } from "node:module";
import { createJiti } from "jiti";
import { readFile } from "node:fs/promises";
import { ConfigError } from "./diagnostic.js";
import { typescriptLocator } from "./locate-typescript.js";
import { runProblem, syntaxProblems } from "./typescript-problems.js";
import type { SourceDocument } from "./source-document.js";

/**
 * Loads `forage.config.ts` by running it (like vite.config.ts). `import … from "forage"` in the
 * config resolves to this running forage-ctl, so the config is checked by the same schema that
 * compiled it. Whoever runs forage-ctl runs the config: as root, that is root's choice (sudo in
 * the config's directory, or --config); the daemon runs only the file root started it with, never
 * a config a user names.
 */
export async function parseTypescriptDocument(file: string, absolutePath: string): Promise<SourceDocument> {
  // The package's own entry, as its package.json `exports` name it (Node resolves a package's own
  // name from inside it): this code may run from the CLI's bundle (dist/bin), where no path
  // relative to this module leads there.
  const selfEntry = createRequire(import.meta.url).resolve("forage");
  const jiti = createJiti(import.meta.url, {
    alias: { forage: selfEntry },
    moduleCache: false,
    fsCache: false,
    interopDefault: false,
  });
  const text = await readFile(absolutePath, "utf8").catch((error: NodeJS.ErrnoException) => {
    throw new ConfigError([
      { file, path: [], message: `cannot read config: ${error.code === "ENOENT" ? "file not found" : String(error)}` },
    ]);
  });
  // All syntax errors at once and positioned, before anything runs.
  const syntax = syntaxProblems(file, text);
  if (syntax.length > 0) throw new ConfigError(syntax);
  let loaded: unknown;
  try {
    loaded = await jiti.import(absolutePath);
  } catch (error) {
    throw new ConfigError([runProblem(file, absolutePath, error)]);
  }
  const data = loaded !== null && typeof loaded === "object" && "default" in loaded ? loaded.default : undefined;
  if (data === undefined) {
    throw new ConfigError([
      { file, path: [], message: "has no default export: end the file with `export default defineConfig({ … })`" },
    ]);
  }
  const locate = typescriptLocator(text);
  return { file, data, locate };
}
