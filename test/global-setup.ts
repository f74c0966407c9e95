import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/** Builds `dist/` (and the native helper) once so CLI tests spawn the real `forage-ctl` the package ships. */
export default function setup(): void {
  const root = fileURLToPath(new URL("..", import.meta.url));
  execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" });
  // The seccomp helper every sandbox enters through (npm run build builds it too).
  execFileSync("bash", ["scripts/build-native.sh"], { cwd: root, stdio: "inherit" });
}
