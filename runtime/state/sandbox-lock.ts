import type { RuntimeContext } from "../core/context.js";
import { pathUnder } from "../core/names.js";
import { holdLock, withLock } from "./lock.js";

/**
 * Runs `work` as the only lifecycle change of sandbox `name` (up, start, stop, reset, down, the
 * health monitor's restart, gc): without it, a monitor restarting a sandbox that `down` is
 * removing would mount a fresh root for a sandbox about to lose its metadata. Work done under it
 * must not take it again (a second holder in the same process would wait for itself).
 */
export function withSandboxLock<T>(context: RuntimeContext, name: string, work: () => Promise<T>): Promise<T> {
  return withLock(pathUnder(context.paths.locksDir, name), work, 600);
}

/**
 * withSandboxLock, not waited for: `work`'s result, or undefined when another holds the lock
 * (a warm pool's member being made, removed, or taken by another up is passed over).
 */
export async function trySandboxLock<T>(
  context: RuntimeContext,
  name: string,
  work: () => Promise<T | undefined>,
): Promise<T | undefined> {
  const release = await holdLock(pathUnder(context.paths.locksDir, name));
  if (release === undefined) return undefined;
  try {
    return await work();
  } finally {
    release();
  }
}
