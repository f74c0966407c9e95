import { existsSync, readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cgroupHierarchies } from "../../runtime/cgroups/hierarchies.js";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { TestHost } from "./harness.js";
import { onEachRuntime } from "./runtimes.js";

/*
 * Attacks on the host's memory and pids from inside a sandbox, and what exec'd commands see of the
 * host's cgroups (issue 13, "Further gaps found": memory, cgroups). Each attack has a control that
 * succeeds where the protection does not apply, so no attempt passes by accident.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "dd");

const templates = `
  capped:
    extends: basic
    resourceLimits: { memoryMax: 128M, tasksMax: 64 }
  fragile:
    extends: basic
    resourceLimits: { memoryMax: 64M, tasksMax: 128 }
  lifted:
    extends: basic
    resourceLimits: { memoryMax: infinity, tasksMax: infinity }
  forky:
    extends: basic
    resourceLimits: { memoryMax: 1G, tasksMax: 64 }
`;

interface Recorded {
  slot: number;
  pid: number | null;
  cgroup: { directories: string[] };
}

describe.each(onEachRuntime(tools, { nspawn: "10.245", gvisor: "10.190" }))(
  "escape: memory, tasks, tmpfs and cgroups of a real sandbox ($runtime runtime)",
  ({ runtime, prefix, runs }) => {
    if (!runs || !isRoot()) return void it.skip("needs root and the runtime's tools");
    const host = new TestHost(prefix, "nobody", templates, "", { runtime });
    const metadata = (name: string): Recorded =>
      JSON.parse(readFileSync(`${host.env.FORAGE_STATE_DIR}/sandboxes/${name}.json`, "utf8")) as Recorded;
    const limitIn = (name: string, file: string): string => {
      const dir = metadata(name).cgroup.directories.find((d) => existsSync(`${d}/${file}`));
      return dir === undefined ? "absent" : readFileSync(`${dir}/${file}`, "utf8").trim();
    };
    /** dd's verdict on writing `mib` MiB to `path` inside: "ok", or what it said. */
    const write = async (sandbox: string, path: string, mib: number): Promise<string> => {
      const result = await host.run([
        "exec",
        sandbox,
        "--",
        "sh",
        "-c",
        'dd if=/dev/zero of="$1" bs=1M count="$2" 2>&1 && echo ok; rm -f "$1"',
        "sh",
        path,
        String(mib),
      ]);
      const out = result.stdout.trim();
      return out.endsWith("\nok") ? "ok" : out;
    };

    beforeAll(async () => {
      for (const [name, template] of [
        ["dflt", "basic"],
        ["capped", "capped"],
        ["lifted", "lifted"],
      ]) {
        const up = await host.run(["up", name ?? "", "-t", template ?? "", "-w", host.workspace(name ?? "")]);
        expect(up.exitCode, up.stderr).toBe(0);
      }
    });
    afterAll(() => host.cleanup());

    it("limits a template without resourceLimits to 4G of memory and 4096 tasks", async () => {
      expect(limitIn("dflt", "memory.limit_in_bytes")).toBe(String(4 * 1024 ** 3));
      // Under gVisor the cgroup holds gVisor's own threads (512 + 32 per task); the agent's
      // processes are held by gVisor's kernel, and status says the limit the agent has.
      expect(limitIn("dflt", "pids.max")).toBe(runtime === "gvisor" ? String(512 + 32 * 4096) : "4096");
      expect((await host.run(["status", "dflt"])).stdout).toMatch(/limits\s+memory 4G, tasks 4096 /);
    });

    it("stops the agent's processes at tasksMax (control: a lifted template starts them all)", async () => {
      // Forks 100 sleepers as the agent, counts the forks that worked, then ends them.
      const forks = [
        "import os, signal, time",
        "pids = []",
        "for i in range(100):",
        "    try: pid = os.fork()",
        "    except OSError: break",
        "    if pid == 0: os.closerange(0, 3); time.sleep(30); os._exit(0)",
        "    pids.append(pid)",
        "for pid in pids: os.kill(pid, signal.SIGKILL)",
        "print(len(pids))",
      ].join("\n");
      const spawn = async (sandbox: string): Promise<number> => Number(await host.sh(sandbox, `python3 -c '${forks}'`));
      // tasksMax 64 holds them (on nspawn its cgroup counts the shell, tmux and the placeholder
      // too). Memory enough for 100: under gVisor a memory limit reached takes the whole sandbox.
      const up = await host.run(["up", "forky", "-t", "forky", "-w", host.workspace("forky")]);
      expect(up.exitCode, up.stderr).toBe(0);
      expect(await spawn("forky")).toBeLessThan(64);
      expect(await spawn("lifted")).toBe(100);
    });

    it("control: a template that says infinity is unlimited, and status shows it", async () => {
      expect(Number(limitIn("lifted", "memory.limit_in_bytes"))).toBeGreaterThan(1024 ** 4);
      expect(limitIn("lifted", "pids.max")).toBe("max");
      const status = await host.run(["status", "lifted"]);
      expect(status.stdout).toMatch(/limits\s+memory unlimited, tasks unlimited/);
      expect((await host.run(["status", "dflt"])).stdout).toMatch(/limits\s+memory 4G, tasks 4096/);
    });

    it.each([
      ["/tmp", 40, 24],
      ["/dev/shm", 20, 12],
      ["/var/tmp", 80, 48],
    ])(
      "refuses a write past the cap into %s with ENOSPC (control: under the cap it succeeds)",
      async (path, over, under) => {
        // memoryMax 128M: root 64M, /tmp 32M, /dev/shm 16M; nspawn's own /tmp and /dev/shm were 2.4 GB.
        expect(await write("capped", `${path}/fill`, under)).toBe("ok");
        expect(await write("capped", `${path}/fill`, over)).toContain("No space left on device");
        expect(await host.sh("capped", "echo alive")).toBe("alive\n");
      },
    );

    it("refuses root inside a write past the cap into /run with ENOSPC (control: under the cap it succeeds)", async () => {
      // memoryMax 128M: /run 8M (nspawn's was 20% of the host's RAM). Only root inside can write it.
      // Under gVisor /run is part of the root, held by the root's cap (64M).
      const asRoot = async (mib: number): Promise<string> => {
        const script = `dd if=/dev/zero of=/run/fill bs=1M count=${mib} 2>&1 && echo ok; rm -f /run/fill\nexit\n`;
        const out = (await host.run(["shell", "capped"], script)).stdout.trim();
        return out.endsWith("\nok") ? "ok" : out;
      };
      expect(await asRoot(6)).toBe("ok");
      expect(await asRoot(runtime === "gvisor" ? 80 : 12)).toContain("No space left on device");
      // The binds under /run still sit on top of the new tmpfs.
      expect(await host.sh("capped", "test -d /run/forage/network && echo bound")).toBe("bound\n");
    });

    it("puts exec'd commands in the sandbox's group on every cgroup hierarchy (under gVisor, its kernel, which runs them)", async () => {
      const recorded = metadata("dflt").cgroup.directories;
      const hierarchies = await cgroupHierarchies();
      expect(recorded).toHaveLength(hierarchies.length);
      const groupsOf = async (pid: number): Promise<string[]> =>
        (await cgroupHierarchies(pid)).map((h) => `${h.mount}${h.path}`);
      let groups: string[];
      if (runtime === "nspawn") {
        const marker = "31.4159";
        const sleeper = host.run(["exec", "dflt", "--", "sleep", marker]);
        const pid = await waitForProcess(["sleep", marker]);
        groups = await groupsOf(pid);
        process.kill(pid, "SIGKILL");
        await sleeper;
      } else {
        // A command inside is no host process: gVisor's kernel (status's pid) runs it.
        groups = await groupsOf(metadata("dflt").pid ?? 0);
      }
      expect(groups).toHaveLength(hierarchies.length);
      expect(groups.filter((group) => !recorded.some((dir) => group === dir || group.startsWith(`${dir}/`)))).toEqual(
        [],
      );
      // Control: this test process is in none of the sandbox's groups.
      const mine = (await cgroupHierarchies()).map((h) => `${h.mount}${h.path}`);
      expect(mine.filter((group) => recorded.some((dir) => group.startsWith(dir)))).toEqual([]);
    });

    it("shows exec'd commands no host cgroup path: every line of /proc/self/cgroup is the namespace's root", async () => {
      const inside = (await host.sh("dflt", "cat /proc/self/cgroup")).trim().split("\n").filter(Boolean);
      // gVisor's kernel shows no cgroup at all there; nspawn's namespace shows each one's root.
      if (runtime === "nspawn") expect(inside.length).toBeGreaterThan(0);
      expect(inside.filter((line) => !line.endsWith(":/"))).toEqual([]);
      // Control: seen from the host, the container's init is in groups whose paths name the sandbox.
      // (gVisor's: its kernel, status's pid, runs every process inside.)
      const pid = metadata("dflt").pid ?? 0;
      const init =
        runtime === "gvisor"
          ? pid
          : Number(readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(" ")[0]);
      const hostView = readFileSync(`/proc/${init}/cgroup`, "utf8").trim().split("\n");
      if (runtime === "nspawn") expect(hostView).toHaveLength(inside.length);
      expect(hostView.filter((line) => !line.includes("/forage/dflt"))).toEqual([]);
    });

    it("recovers by itself after a cgroup OOM killed the container: start and exec work again", async () => {
      const up = await host.run(["up", "frag", "-t", "fragile", "-w", host.workspace("frag")]);
      expect(up.exitCode, up.stderr).toBe(0);
      const before = metadata("frag");
      const memoryDir = before.cgroup.directories.find((d) => existsSync(`${d}/memory.oom_control`)) ?? "";
      // Fill every tmpfs to its cap (56M of 64M), then hold a few MB in many small shells: the OOM
      // killer takes the largest processes, nspawn and the container's init, and the sandbox dies.
      const hog = [
        "for f in /var/tmp/a /tmp/a /dev/shm/a; do dd if=/dev/zero of=$f bs=1M count=64 2>/dev/null; done",
        "i=0; while [ $i -lt 24 ]; do (x=$(head -c 1500000 /dev/zero | tr '\\0' a); sleep 20) & i=$((i+1)); done; wait",
      ].join("\n");
      await host.run(["exec", "frag", "--", "sh", "-c", hog]);
      await waitFor(async () => (await host.run(["status", "frag", "--json"])).stdout.includes('"status": "stopped"'));
      expect(readFileSync(`${memoryDir}/memory.oom_control`, "utf8")).toMatch(/oom_kill [1-9]/);
      // Control: the dead container left its namespace behind, which start used to refuse.
      expect(existsSync(`/run/netns/f${before.slot}`)).toBe(true);
      const start = await host.run(["start", "frag"]);
      expect(start.exitCode, start.stderr).toBe(0);
      expect(await host.sh("frag", "echo alive")).toBe("alive\n");
    }, 90_000);
  },
);

/** The host pid of the first process whose argv is exactly `argv` (waits up to 10 s). */
async function waitForProcess(argv: string[]): Promise<number> {
  const wanted = `${argv.join("\0")}\0`;
  for (let attempt = 0; attempt < 200; attempt++) {
    for (const entry of readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
      const cmdline = (() => {
        try {
          return readFileSync(`/proc/${entry}/cmdline`, "utf8");
        } catch {
          return "";
        }
      })();
      if (cmdline === wanted) return Number(entry);
    }
    await sleep(50);
  }
  throw new Error(`no process ${argv.join(" ")} appeared`);
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 40_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await sleep(500);
  }
  throw new Error(`condition not met within ${timeoutMs} ms`);
}
