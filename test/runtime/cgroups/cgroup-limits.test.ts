import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cgroupLimits } from "../../../runtime/cgroups/cgroup-limits.js";

/*
 * What `status` shows for a running sandbox: the limits its groups hold (issue 27: status showed
 * the settings' tasksMax while the cgroup held another). The files stand in for cgroupfs, in the
 * formats the kernel writes them (v2's single hierarchy, v1's one per controller).
 */
describe("a running sandbox's limits, read from its cgroup", () => {
  const dirs: string[] = [];
  const group = (files: Record<string, string>): string => {
    const dir = mkdtempSync(join(tmpdir(), "forage-cgroup-"));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), `${text}\n`);
    dirs.push(dir);
    return dir;
  };
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it("reads v2's files back in the template's units", async () => {
    const dir = group({ "memory.max": String(96 * 1024 ** 2), "pids.max": "3000", "cpu.max": "150000 100000" });
    expect(await cgroupLimits({ directories: [dir], procsFiles: [] })).toEqual({
      memoryMax: "96M",
      tasksMax: 3000,
      cpuQuota: "150%",
    });
  });

  it("says unlimited (null) for v2's max", async () => {
    const dir = group({ "memory.max": "max", "pids.max": "max", "cpu.max": "max 100000" });
    expect(await cgroupLimits({ directories: [dir], procsFiles: [] })).toEqual({
      memoryMax: null,
      tasksMax: null,
      cpuQuota: null,
    });
  });

  it("finds each limit in v1's hierarchy that holds it, and reads v1's unlimited values as null", async () => {
    const memory = group({ "memory.limit_in_bytes": "9223372036854771712" });
    const pids = group({ "pids.max": "64" });
    const cpu = group({ "cpu.cfs_quota_us": "-1" });
    expect(await cgroupLimits({ directories: [memory, pids, cpu], procsFiles: [] })).toEqual({
      memoryMax: null,
      tasksMax: 64,
      cpuQuota: null,
    });
  });
});
