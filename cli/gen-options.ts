// Maintainer script: rewrites modules/options/*.nix from the zod schema (`npm run gen:options`).
// A test fails when the committed files differ from what this writes.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { nixOptionFiles } from "../generator/schema-export/nix-option-files.js";
import { packageRoot } from "../runtime/core/package-root.js";

for (const file of nixOptionFiles()) {
  writeFileSync(join(packageRoot(), file.path), file.contents);
  process.stdout.write(`wrote ${file.path}\n`);
}
