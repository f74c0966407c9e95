import { execFileSync } from "node:child_process";

/** True when `name` is an executable on PATH. */
export function hasTool(name: string): boolean {
  try {
    execFileSync("sh", ["-c", 'command -v "$1"', "sh", name], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/**
 * Decides whether a test that needs `tools` can run. Locally a missing tool skips the test with a
 * visible reason; under `CI=true` a missing tool is a failure (DESIGN rule 11), so it returns
 * true and lets the test fail loudly on the missing executable.
 */
export function toolsAvailable(...tools: string[]): { run: boolean; reason: string } {
  const missing = tools.filter((tool) => !hasTool(tool));
  if (missing.length === 0) return { run: true, reason: "" };
  const reason = `missing tool(s): ${missing.join(", ")} (install them with .ci/run)`;
  if (process.env.CI === "true") {
    throw new Error(`CI=true and ${reason}`);
  }
  console.warn(`skipping: ${reason}`);
  return { run: false, reason };
}

/**
 * True when this process is root (namespaces, mounts, nspawn). Like a missing tool, not being
 * root skips locally with a reason and fails under CI=true (DESIGN rule 11).
 */
export function isRoot(): boolean {
  const root = typeof process.getuid === "function" && process.getuid() === 0;
  if (!root && process.env.CI === "true") throw new Error("CI=true and the tests are not running as root (real containers need root)");
  if (!root) console.warn("skipping: needs root (real containers, namespaces)");
  return root;
}
