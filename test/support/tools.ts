import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

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
 * visible reason; under `CI=true` a missing tool is a failure (ARCHITECTURE.md rule 11), so it returns
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
 * root skips locally with a reason and fails under CI=true (ARCHITECTURE.md rule 11).
 */
export function isRoot(): boolean {
  const root = typeof process.getuid === "function" && process.getuid() === 0;
  if (!root && process.env.CI === "true")
    throw new Error("CI=true and the tests are not running as root (real containers need root)");
  if (!root) console.warn("skipping: needs root (real containers, namespaces)");
  return root;
}

/**
 * True when this process is root with no login session of another user (/proc/self/loginuid
 * unset or root's): then `init` has no user to take but the ones a test gives it. Otherwise
 * skips locally with a reason and fails under CI=true, like a missing tool (ARCHITECTURE.md rule 11).
 */
export function rootWithoutLoginSession(): boolean {
  let loginUid = "4294967295";
  try {
    loginUid = readFileSync("/proc/self/loginuid", "utf8").trim();
  } catch {
    // No audit support: no login session either.
  }
  const usable = process.getuid?.() === 0 && (loginUid === "4294967295" || loginUid === "0");
  if (usable) return true;
  const reason =
    "needs root without a non-root login session (see /proc/self/loginuid): init would take that session's user";
  if (process.env.CI === "true") throw new Error(`CI=true and the tests ${reason}`);
  console.warn(`skipping: ${reason}`);
  return false;
}
