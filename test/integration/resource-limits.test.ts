import { existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { TestHost } from "./harness.js";

/*
 * Resource limits enforced on the sandbox itself (its cgroup), including processes started later
 * with exec: a fork bomb stops at tasksMax, a memory hog is killed inside the sandbox only, and
 * the CPU quota caps a busy loop.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "python3");

describe.skipIf(!tools.run || !isRoot())("resource limits of a real sandbox", () => {
  const host = new TestHost("10.235");
  let cgroup: { directories: string[] } = { directories: [] };
  beforeAll(async () => {
    expect((await host.run(["up", "lim", "-t", "limited", "-w", host.workspace("lim")])).exitCode).toBe(0);
    const metadata = JSON.parse(readFileSync(`${host.env.FORAGE_STATE_DIR}/sandboxes/lim.json`, "utf8")) as {
      cgroup: { directories: string[] };
    };
    cgroup = metadata.cgroup;
  });
  afterAll(() => host.cleanup());

  it("applies the template's limits to the sandbox's cgroup", () => {
    const files = cgroup.directories.flatMap((dir) =>
      ["memory.limit_in_bytes", "pids.max", "cpu.cfs_quota_us", "memory.max", "cpu.max"].map((f) => `${dir}/${f}`),
    );
    const values = files.flatMap((file) => {
      try {
        return [readFileSync(file, "utf8").trim()];
      } catch {
        return [];
      }
    });
    expect(values).toContain("32");
    expect(values.some((v) => v === String(96 * 1024 * 1024) || v === "100663296")).toBe(true);
    expect(values.some((v) => v === "50000" || v === "50000 100000")).toBe(true);
  });

  it("stops a fork bomb at tasksMax", async () => {
    // Forks children that sleep until killed, counting how many the kernel allows.
    const script = [
      "import os, signal, time",
      "kids = []",
      "try:",
      "    for _ in range(200):",
      "        pid = os.fork()",
      "        if pid == 0:",
      "            time.sleep(30); os._exit(0)",
      "        kids.append(pid)",
      "except OSError as error:",
      "    print('refused', error.errno)",
      "print(len(kids))",
      "for pid in kids: os.kill(pid, signal.SIGKILL)",
    ].join("\n");
    const out = (await host.sh("lim", `python3 -c "${script}"`)).trim().split("\n");
    expect(out[0]).toBe("refused 11");
    expect(Number(out[1])).toBeLessThan(32);
    expect(Number(out[1])).toBeGreaterThan(5);
  });

  it("kills a memory hog inside the sandbox only, and the sandbox keeps running", async () => {
    const hog = await host.run([
      "exec",
      "lim",
      "--",
      "python3",
      "-c",
      "a = bytearray(400 * 1024 * 1024); print('survived')",
    ]);
    expect(hog.stdout).not.toContain("survived");
    expect(hog.exitCode).toBe(137);
    expect(await host.sh("lim", "echo alive")).toBe("alive\n");
  });

  it("caps CPU at the quota: a 2-second busy loop gets about one second of CPU", async () => {
    const script =
      "import time,os\nend=time.time()+2\nwhile time.time()<end: pass\nt=os.times()\nprint(t.user+t.system)";
    const cpu = Number((await host.sh("lim", `python3 -c "${script}"`)).trim());
    expect(cpu).toBeGreaterThan(0.3);
    expect(cpu).toBeLessThan(1.4);
  });

  it("removes its cgroup on down", async () => {
    expect(cgroup.directories.length).toBeGreaterThan(0);
    expect(cgroup.directories.every((dir) => existsSync(dir))).toBe(true);
    expect((await host.run(["down", "lim", "-t", "1"])).exitCode).toBe(0);
    expect(cgroup.directories.filter((dir) => existsSync(dir))).toEqual([]);
  });
});
