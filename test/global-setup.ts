import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/** Builds `dist/` once so CLI tests spawn the real `forage-ctl` the package ships. */
export default function setup(): void {
  const root = fileURLToPath(new URL("..", import.meta.url));
  execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" });
}
