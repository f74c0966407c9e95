import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../../runtime/core/package-root.js";
import { holdLock, withLock } from "../../../runtime/state/lock.js";

const dir = mkdtempSync(join(tmpdir(), "forage-lock-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Whether another process gets the lock within a second, asked synchronously: this process's
 * event loop waits meanwhile, so nothing it left to the loop can release the lock.
 */
const free = (file: string): boolean =>
  spawnSync("flock", ["--exclusive", "--timeout", "1", file, "true"]).status === 0;

describe("the state lock", () => {
  it("serializes two holders: the second's work starts after the first's ends", async () => {
    const file = join(dir, "serial");
    const order: string[] = [];
    const first = withLock(file, async () => {
      order.push("first in");
      await new Promise((resolve) => setTimeout(resolve, 150));
      order.push("first out");
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await withLock(file, async () => void order.push("second"));
    await first;
    expect(order).toEqual(["first in", "first out", "second"]);
  });

  it("is held during the work and free the moment it ends, even while this process's event loop is blocked", async () => {
    const file = join(dir, "sync");
    await withLock(file, async () => expect(free(file)).toBe(false));
    expect(free(file)).toBe(true);
  });

  it("is released when the work fails", async () => {
    const file = join(dir, "failing");
    await expect(withLock(file, () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(free(file)).toBe(true);
  });

  it("holdLock refuses at once while another process holds the lock, and takes it once free", async () => {
    const file = join(dir, "daemon");
    // flock hands the lock to the command it runs too: both go, as a process group.
    const other = spawn("flock", ["--exclusive", file, "sleep", "30"], { stdio: "ignore", detached: true });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await holdLock(file)).toBeUndefined();
    if (other.pid === undefined) throw new Error("flock did not start");
    process.kill(-other.pid, "SIGKILL");
    await new Promise((resolve) => other.once("close", resolve));
    const release = await holdLock(file);
    expect(release).toBeTypeOf("function");
    expect(free(file)).toBe(false);
    release?.();
    expect(free(file)).toBe(true);
  });

  it("is released when the process holding it is killed", async () => {
    const file = join(dir, "killed");
    const lockModule = join(packageRoot(), "dist/runtime/state/lock.js");
    const script = `const { withLock } = await import(${JSON.stringify(lockModule)}); await withLock(${JSON.stringify(file)}, async () => { console.log("held"); await new Promise(() => setInterval(() => {}, 1000)); });`;
    const holder = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise((resolve) => holder.stdout.once("data", resolve));
    expect(free(file)).toBe(false);
    holder.kill("SIGKILL");
    await new Promise((resolve) => holder.once("close", resolve));
    let released = false;
    for (let i = 0; i < 50 && !released; i++) {
      released = free(file);
      if (!released) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(released).toBe(true);
  });
});
