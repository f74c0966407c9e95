// Bundles the compiled CLI (dist/cli/main.js and every forage module it reaches) into dist/bin/,
// the `forage-ctl` that package.json's `bin` names. Why: Node resolves, reads and links each ES
// module on every start (~1 ms apiece); a command through the daemon loaded ~30 of them, ~20 ms of
// a ~150 ms `forage-ctl exec`. Each command's modules still load on demand (a chunk per dynamic
// import, as in dist/cli), so a command through the daemon loads no config toolchain.
//
// Forage's own modules go into the bundle whole, so each exists once (one UserError class for
// `instanceof`). The libraries (package.json's dependencies but commander) stay in node_modules,
// imported as before by the chunks that need them. The guard host runs in its own process from dist/runtime (no bundle needed there).
// Run by `npm run build` after tsc; nothing here is hand-edited.
import { chmod, readFile, rm } from "node:fs/promises";
import { builtinModules } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "dist/bin");
// Every runtime dependency stays a library but commander, which every command loads at once.
const bundled = new Set(["commander"]);
const { dependencies } = JSON.parse(await readFile(join(root, "package.json"), "utf8"));
const libraries = Object.keys(dependencies).filter((name) => !bundled.has(name));
const isLibrary = (id) => libraries.some((name) => id === name || id.startsWith(`${name}/`));
const isBuiltin = (id) => id.startsWith("node:") || builtinModules.includes(id);

await rm(out, { recursive: true, force: true });
await build({
  input: { main: join(root, "dist/cli/main.js") },
  platform: "node",
  external: (id) => isBuiltin(id) || isLibrary(id),
  logLevel: "warn",
  // `main.js` by name: the daemon is started as `node <dir of this chunk>/main.js daemon` (ensure-daemon.ts).
  output: { dir: out, format: "esm", entryFileNames: "[name].js", chunkFileNames: "[name]-[hash].js" },
});
// Executable: scripts/install.sh links it onto PATH as forage-ctl (its #! line names node).
await chmod(join(out, "main.js"), 0o755);
