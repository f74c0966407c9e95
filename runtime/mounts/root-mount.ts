import { mkdir, rmdir } from "node:fs/promises";
import { runCommand } from "../core/run-command.js";

/**
 * Mounts a fresh tmpfs as a sandbox's root: whatever the sandbox writes there dies with it.
 * `bytes` caps it (see tmpfsCaps: below the memory limit, a full root is ENOSPC, not an OOM kill).
 */
export async function mountRoot(root: string, bytes: number): Promise<void> {
  await mkdir(root, { recursive: true, mode: 0o755 });
  await runCommand("mount", ["-t", "tmpfs", "-o", `mode=0755,size=${bytes},nosuid,nodev`, "forage-root", root]);
}

/** Unmounts and removes a sandbox root; absent or already unmounted is fine. */
export async function unmountRoot(root: string): Promise<void> {
  // Lazy: a process that still has its cwd there (an exec being torn down) must not block cleanup.
  await runCommand("umount", ["--lazy", root], { reject: false });
  await rmdir(root).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
  });
}
