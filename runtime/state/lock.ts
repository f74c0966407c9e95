import { spawn, type ChildProcess } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * Runs `work` while holding an exclusive flock(2) on `lockFile`. Node has no flock, so a helper
 * process holds it (see holdLockProcess); the kernel releases it when the helper dies for any
 * reason, so a CLI or daemon killed mid-`up` never wedges the host.
 */
export async function withLock<T>(lockFile: string, work: () => Promise<T>, timeoutSeconds = 60): Promise<T> {
  await mkdir(dirname(lockFile), { recursive: true, mode: 0o750 });
  const holder = await holdLockProcess(lockFile, ["--timeout", String(timeoutSeconds)], timeoutSeconds);
  try {
    return await work();
  } finally {
    release(holder);
  }
}

/**
 * Takes an exclusive flock on `lockFile` for as long as this process wants (a daemon's whole
 * life), waiting up to `waitSeconds` (default: not at all): returns a release function, or
 * undefined when another process holds it.
 */
export async function holdLock(lockFile: string, waitSeconds = 0): Promise<(() => void) | undefined> {
  await mkdir(dirname(lockFile), { recursive: true, mode: 0o755 });
  try {
    const holder = await holdLockProcess(
      lockFile,
      waitSeconds === 0 ? ["--nonblock"] : ["--timeout", String(waitSeconds)],
      waitSeconds,
    );
    return () => release(holder);
  } catch {
    return undefined;
  }
}

/**
 * `flock FILE cat`: flock takes the lock, then runs cat, which echoes what it reads; the byte
 * written to its stdin coming back says the lock is held. Its own process group, so release can
 * kill flock and cat at once.
 */
function holdLockProcess(lockFile: string, options: string[], timeoutSeconds: number): Promise<ChildProcess> {
  const holder = spawn("flock", ["--exclusive", ...options, lockFile, "cat"], {
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  return new Promise((resolve, reject) => {
    let stderr = "";
    holder.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    holder.stdout?.once("data", () => resolve(holder));
    holder.stdin?.on("error", () => undefined);
    holder.stdin?.write("\n");
    holder.once("error", (error) => reject(new Error(`cannot run flock for ${lockFile}: ${error.message}`)));
    holder.once("exit", (code) =>
      reject(new Error(`could not lock ${lockFile} within ${timeoutSeconds} s (flock exit ${code}): ${stderr.trim()}`)),
    );
  });
}

/**
 * Lets the lock go now, not when this process's event loop next runs: SIGKILL to the helper's
 * group is delivered at once, and the kernel drops the lock as the helper dies.
 */
function release(holder: ChildProcess): void {
  try {
    if (holder.pid !== undefined) process.kill(-holder.pid, "SIGKILL");
  } catch {
    // already gone
  }
  holder.stdin?.destroy();
  holder.stdout?.destroy();
  holder.stderr?.destroy();
}
