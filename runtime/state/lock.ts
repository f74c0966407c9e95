import { spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * Runs `work` while holding an exclusive flock(2) on `lockFile`. Node has no flock, so a helper
 * `flock` process takes the lock and holds it until its stdin closes; the kernel releases it when
 * that pipe closes for any reason, so a CLI or daemon killed mid-`up` never wedges the host.
 */
export async function withLock<T>(lockFile: string, work: () => Promise<T>, timeoutSeconds = 60): Promise<T> {
  await mkdir(dirname(lockFile), { recursive: true, mode: 0o750 });
  // The script is a constant; the lock file arrives as an argument.
  const holder = spawn("flock", ["--exclusive", "--timeout", String(timeoutSeconds), lockFile, "sh", "-c", "echo locked; exec cat >/dev/null"], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  try {
    await acquired(holder, lockFile, timeoutSeconds);
    return await work();
  } finally {
    holder.stdin.end();
    holder.kill("SIGTERM");
  }
}

/**
 * Takes an exclusive flock on `lockFile` for as long as this process wants (a daemon's whole
 * life) without waiting: returns a release function, or undefined when another process holds it.
 */
export async function holdLock(lockFile: string): Promise<(() => void) | undefined> {
  await mkdir(dirname(lockFile), { recursive: true, mode: 0o755 });
  const holder = spawn("flock", ["--exclusive", "--nonblock", lockFile, "sh", "-c", "echo locked; exec cat >/dev/null"], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  try {
    await acquired(holder, lockFile, 0);
  } catch {
    return undefined;
  }
  return () => {
    holder.stdin.end();
    holder.kill("SIGTERM");
  };
}

function acquired(holder: ReturnType<typeof spawn>, lockFile: string, timeoutSeconds: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let stderr = "";
    holder.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    holder.stdout?.once("data", () => resolve());
    holder.once("error", (error) => reject(new Error(`cannot run flock for ${lockFile}: ${error.message}`)));
    holder.once("exit", (code) => reject(new Error(`could not lock ${lockFile} within ${timeoutSeconds} s (flock exit ${code}): ${stderr.trim()}`)));
  });
}

/** True when a process with this pid exists (signal 0 checks without sending anything). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
