import { execFileSync, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/** Builds `dist/` (and the native helper) once so CLI tests spawn the real `forage-ctl` the package ships. */
export default function setup(): void {
  const root = fileURLToPath(new URL("..", import.meta.url));
  refuseCheckoutOthersCannotRead(root);
  execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" });
  // The seccomp helper every sandbox enters through (npm run build builds it too).
  execFileSync("bash", ["scripts/build-native.sh"], { cwd: root, stdio: "inherit" });
}

/**
 * Tests run programs from the checkout as other accounts (the agent's, Nix's build users): in a
 * checkout they cannot reach (under /root, a 0700 home) dozens fail with "Permission denied".
 * Said once, first, with what to do (install.sh warns the same).
 */
function refuseCheckoutOthersCannotRead(root: string): void {
  if (process.getuid?.() !== 0) return;
  const check = spawnSync("bash", ["scripts/reachable-by-others.sh", root], { cwd: root, encoding: "utf8" });
  // 0: reachable; 2: this machine cannot check (it said why on stderr); 1: a directory stops them.
  if (check.status !== 1) return;
  throw new Error(
    `${check.stdout.trim()} keeps other accounts out of this checkout (${root}), and the tests run programs from it as other accounts: clone it where others can read (e.g. /opt/forage), or open the way (chmod o+x ${check.stdout.trim()})`,
  );
}
