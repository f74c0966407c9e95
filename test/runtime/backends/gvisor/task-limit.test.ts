import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runtimePaths } from "../../../../runtime/core/paths.js";
import { bundlePath } from "../../../../runtime/backends/gvisor/runsc.js";
import {
  gvisorHostTasks,
  processRlimits,
  recordTaskLimit,
  startedTaskLimit,
} from "../../../../runtime/backends/gvisor/task-limit.js";

describe("tasksMax under gVisor", () => {
  const dir = mkdtempSync(join(tmpdir(), "forage-tasks-"));
  const paths = runtimePaths(join(dir, "state"), { FORAGE_RUN_DIR: join(dir, "run") });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("holds gVisor's own threads to a bound that grows with the agent's limit, none when it has none", () => {
    expect(gvisorHostTasks(64)).toBe(512 + 32 * 64);
    expect(gvisorHostTasks(4096)).toBe(131_584);
    expect(gvisorHostTasks(1_000_000)).toBe(4_194_304);
    expect(gvisorHostTasks(null)).toBeNull();
  });

  it("gives PID 1 RLIMIT_NPROC, soft and hard, and nothing when unlimited", () => {
    expect(processRlimits(64)).toEqual([{ type: "RLIMIT_NPROC", hard: 64, soft: 64 }]);
    expect(processRlimits(null)).toEqual([]);
  });

  it("reads back what a start recorded, and nothing it cannot trust", async () => {
    mkdirSync(bundlePath(paths, "demo"), { recursive: true });
    expect(await startedTaskLimit(paths, "demo")).toBeUndefined();
    await recordTaskLimit(paths, "demo", 64);
    expect(await startedTaskLimit(paths, "demo")).toBe(64);
    await recordTaskLimit(paths, "demo", null);
    expect(await startedTaskLimit(paths, "demo")).toBeNull();
    for (const planted of ["0\n", "-1\n", "64", "64 --user=0:0\n", "99999999999\n"]) {
      writeFileSync(join(bundlePath(paths, "demo"), "tasks"), planted);
      expect(await startedTaskLimit(paths, "demo"), planted).toBeUndefined();
    }
  });
});
