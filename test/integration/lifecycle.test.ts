import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { agentUid, TestHost } from "./harness.js";
import { onEachRuntime } from "./runtimes.js";

const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "tmux");

async function namespaces(): Promise<string[]> {
  return (await execa("ip", ["netns", "list"])).stdout
    .split("\n")
    .map((line) => line.split(" ")[0] ?? "")
    .filter(Boolean);
}

describe.each(onEachRuntime(tools, { nspawn: "10.232", gvisor: "10.201" }))(
  "sandbox lifecycle on real containers ($runtime runtime)",
  ({ runtime, prefix, runs }) => {
    if (!runs || !isRoot()) return void it.skip("needs root and the runtime's tools");
    const host = new TestHost(prefix, "nobody", "", "", { runtime });
    afterAll(() => host.cleanup());

    it("wipes the root on reset but keeps the workspace and the metadata", async () => {
      const workspace = host.workspace("reset");
      expect((await host.run(["up", "rs", "-t", "basic", "-w", workspace])).exitCode).toBe(0);
      // First use as root started the daemon for unprivileged use.
      expect(existsSync(join(host.env.FORAGE_RUN_DIR ?? "", "daemon.sock"))).toBe(true);
      // The template chose the runtime: every test of this describe runs on it.
      expect((await host.run(["status", "rs"])).stdout).toMatch(new RegExp(`^runtime\\s+${runtime}$`, "m"));
      const before = JSON.parse((await host.run(["status", "rs", "--json"])).stdout) as {
        slot: number;
        createdAt: string;
      };
      await host.sh("rs", "echo gone > /tmp/scratch; echo gone > ~/dotfile; echo kept > /workspace/kept");
      expect((await host.run(["reset", "rs"])).exitCode).toBe(0);
      expect(await host.sh("rs", "cat /tmp/scratch ~/dotfile 2>&1 || true")).toContain("No such file");
      expect(await host.sh("rs", "cat /workspace/kept")).toBe("kept\n");
      expect(await host.sh("rs", "cat /tmp/init-marker")).toBe("ready\n");
      const after = JSON.parse((await host.run(["status", "rs", "--json"])).stdout) as {
        slot: number;
        createdAt: string;
        status: string;
      };
      expect(after).toMatchObject({ slot: before.slot, createdAt: before.createdAt, status: "running" });
      const events = (await host.run(["audit-log", "rs", "--json"])).stdout
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as { event: string }).event);
      expect(events).toEqual(expect.arrayContaining(["start", "create", "exec", "stop", "reset"]));
    });

    it("stops and starts a sandbox: a stopped one is listed as stopped and refuses exec with exit 5", async () => {
      expect((await host.run(["stop", "rs", "-t", "1"])).exitCode).toBe(0);
      expect((await host.run(["ps", "--json"])).stdout).toContain('"status": "stopped"');
      const refused = await host.run(["exec", "rs", "--", "true"]);
      expect(refused.exitCode).toBe(5);
      expect(refused.stderr).toContain('sandbox "rs" is not running');
      expect((await host.run(["start", "rs"])).exitCode).toBe(0);
      expect(await host.sh("rs", "cat /workspace/kept")).toBe("kept\n");
    });

    it("asks before it forces on stop: a TERM handler finishes, an interactive shell ends on its hangup", async () => {
      // A process that saves its state on TERM, outside any terminal. nspawn's stub init ends with
      // the placeholder and kills everything left, so a stop must not TERM the placeholder.
      const saver = `trap 'sleep 2; echo saved > /workspace/saved; exit' TERM; echo up > /tmp/saver-up; while :; do sleep 0.2; done`;
      // An interactive shell ignores TERM. Linux hangs up its terminal when the master (the tmux
      // server) closes; gVisor does not, so its stop does. Its EXIT trap shows it ended by itself.
      const shell = `trap 'echo ended > /workspace/hup' EXIT; echo up > /tmp/shell-up`;
      await host.sh(
        "rs",
        `setsid bash -c "${saver}" </dev/null >/dev/null 2>&1 & echo "${shell}" > /tmp/hup-rc; tmux new-window -d -n shell 'bash --rcfile /tmp/hup-rc -i'`,
      );
      const bothUp = "for i in $(seq 100); do [ -e /tmp/saver-up ] && [ -e /tmp/shell-up ] && break; sleep 0.1; done";
      expect(await host.sh("rs", `${bothUp}; cat /tmp/saver-up /tmp/shell-up`)).toBe("up\nup\n");
      expect((await host.run(["stop", "rs", "-t", "60"])).exitCode).toBe(0);
      const workspace = join(host.dir, "workspaces", "reset");
      expect(readFileSync(join(workspace, "saved"), "utf8")).toBe("saved\n");
      expect(readFileSync(join(workspace, "hup"), "utf8")).toBe("ended\n");
      expect((await host.run(["start", "rs"])).exitCode).toBe(0);
    });

    it("gives two sandboxes distinct slots, addresses and workspaces that cannot see each other", async () => {
      const other = host.workspace("other");
      expect((await host.run(["up", "two", "-t", "basic", "-w", other])).exitCode).toBe(0);
      const list = JSON.parse((await host.run(["ps", "--json"])).stdout) as {
        name: string;
        slot: number;
        address: string;
      }[];
      const slots = list.map((s) => s.slot);
      expect(new Set(slots).size).toBe(slots.length);
      expect(list.find((s) => s.name === "two")?.address).toMatch(
        new RegExp(`^${prefix.replace(".", "\\.")}\\.\\d+\\.2$`),
      );
      // (files only: missing protected paths show as empty stand-in directories.)
      expect(await host.sh("two", "find /workspace -type f")).toBe("");
      expect(await host.sh("two", "ls /proc | grep -cE '^[0-9]+$'")).not.toBe("0\n");
      expect((await host.run(["down", "two"])).exitCode).toBe(0);
    });

    it("removes everything on down: container, root, network namespace, secrets, metadata", async () => {
      const workspace = host.workspace("down");
      expect((await host.run(["up", "gone", "-t", "keyed", "-w", workspace])).exitCode).toBe(0);
      const { slot } = JSON.parse((await host.run(["status", "gone", "--json"])).stdout) as { slot: number };
      expect(await namespaces()).toContain(`f${slot}`);
      expect(existsSync(join(host.env.FORAGE_SECRETS_DIR ?? "", "gone"))).toBe(true);
      expect((await host.run(["down", "gone"])).exitCode).toBe(0);
      expect(await namespaces()).not.toContain(`f${slot}`);
      expect(existsSync(join(host.env.FORAGE_SECRETS_DIR ?? "", "gone"))).toBe(false);
      expect(existsSync(join(host.env.FORAGE_RUN_DIR ?? "", "roots", "gone"))).toBe(false);
      expect(existsSync(join(host.env.FORAGE_STATE_DIR ?? "", "sandboxes", "gone.json"))).toBe(false);
      expect((await execa("mount")).stdout).not.toContain(join(host.dir, "run", "roots", "gone"));
      // The direct workspace is the user's: never touched.
      expect(statSync(workspace).isDirectory()).toBe(true);
    });

    it("mounts the workspace read-only with readOnlyWorkspace", async () => {
      const workspace = host.workspace("ro");
      expect((await host.run(["up", "ro", "-t", "readonly", "-w", workspace])).exitCode).toBe(0);
      expect(await host.sh("ro", "touch /workspace/x 2>&1 || true")).toContain("Read-only file system");
      expect((await host.run(["down", "ro"])).exitCode).toBe(0);
    });

    it("runs the repository's executable .forage/init as the agent in the workspace", async () => {
      const workspace = host.workspace("repoinit");
      mkdirSync(join(workspace, ".forage"));
      writeFileSync(join(workspace, ".forage/init"), "#!/bin/sh\nid -u > init-ran\n", { mode: 0o755 });
      expect((await host.run(["up", "repoinit", "-t", "basic", "-w", workspace])).exitCode).toBe(0);
      expect(readFileSync(join(workspace, "init-ran"), "utf8")).toBe(`${agentUid}\n`);
      expect((await host.run(["down", "repoinit", "-t", "1"])).exitCode).toBe(0);
    });

    it("reports init failures as warnings and still creates the sandbox", async () => {
      const result = await host.run(["up", "warn", "-t", "broken-init", "-w", host.workspace("warn")]);
      expect(result.exitCode).toBe(0);
      expect(result.stderr).toContain('warning: init step "exit 3" failed with exit 3');
      expect((await host.run(["down", "warn"])).exitCode).toBe(0);
    });

    it("answers with the documented exit codes for unknown sandboxes and templates and bad names", async () => {
      expect((await host.run(["exec", "nope", "--", "true"])).exitCode).toBe(2);
      expect((await host.run(["up", "x", "-t", "missing", "-w", host.workspace("x")])).exitCode).toBe(3);
      // A name no template can have is a usage error, in-process as through the daemon.
      const notAName = await host.run(["up", "x", "-t", "Claude", "-w", host.workspace("x")]);
      expect([notAName.exitCode, notAName.stderr]).toEqual([
        64,
        expect.stringContaining("invalid up request: template: must be 1-32 characters"),
      ]);
      const bad = await host.run(["up", "Bad_Name", "-t", "basic", "-w", host.workspace("x")]);
      expect(bad.exitCode).toBe(64);
      expect(bad.stderr).toContain("invalid sandbox name");
      expect((await host.run(["up", "dup", "-t", "basic", "-w", join(host.dir, "does-not-exist")])).exitCode).toBe(64);
    });

    it("leaves nothing behind when up fails after the slot was taken (secret file missing)", async () => {
      const secret = readFileSync(join(host.dir, "demo-key"));
      await execa("rm", [join(host.dir, "demo-key")]);
      try {
        const before = await namespaces();
        const failed = await host.run(["up", "fail", "-t", "keyed", "-w", host.workspace("fail")]);
        expect(failed.exitCode).toBe(6);
        expect(failed.stderr).toContain('cannot copy secret "demo-key"');
        expect(await namespaces()).toEqual(before);
        expect(
          readdirSync(join(host.env.FORAGE_STATE_DIR ?? "", "sandboxes")).filter((f) => f === "fail.json"),
        ).toEqual([]);
        expect(existsSync(join(host.env.FORAGE_SECRETS_DIR ?? "", "fail"))).toBe(false);
      } finally {
        await execa("sh", ["-c", 'cat > "$1"', "sh", join(host.dir, "demo-key")], { input: secret });
      }
    });

    it("owns workspace files by the host user, so the user keeps working on them outside", async () => {
      await host.sh("rs", "echo x > /workspace/owned");
      expect(statSync(join(host.dir, "workspaces", "reset", "owned")).uid).toBe(agentUid);
    });
  },
);

describe.skipIf(!tools.run || !isRoot())("the health monitor", () => {
  const host = new TestHost("10.237");
  afterAll(() => host.cleanup());

  it("reports a sandbox whose agent session died, and restarts it with --auto-restart", async () => {
    expect((await host.run(["up", "mon", "-t", "basic", "-w", host.workspace("mon")])).exitCode).toBe(0);
    expect((await host.run(["monitor", "--once"])).exitCode).toBe(0);
    await host.sh("mon", "tmux kill-server");
    const report = await host.run(["monitor", "--once"]);
    expect(report.exitCode).toBe(1);
    expect(report.stdout).toContain("mon: unhealthy (agent session is gone)");
    const restarted = await host.run(["monitor", "--once", "--auto-restart"]);
    expect(restarted.stdout).toContain("restarted");
    expect((await host.run(["monitor", "--once"])).exitCode).toBe(0);
    expect(await host.sh("mon", "tmux list-windows -t forage -F '#{window_name}'")).toBe("helper\n");
  });

  it("restarts a sandbox whose container died", async () => {
    const { pid } = JSON.parse((await host.run(["status", "mon", "--json"])).stdout) as { pid: number };
    process.kill(pid, "SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 500));
    const restarted = await host.run(["monitor", "--once", "--auto-restart"]);
    expect(restarted.stdout).toContain("mon: unhealthy (container is gone), restarted");
    expect(await host.sh("mon", "echo back")).toBe("back\n");
    // The old container's processes (reparented when nspawn was killed) are gone too.
    const inits = (await execa("pgrep", ["-x", "\\(sd-stubinit\\)"], { reject: false })).stdout
      .trim()
      .split("\n")
      .filter(Boolean);
    const ours: string[] = [];
    for (const pid of inits) {
      // A killed init nobody reaped yet (the host's PID 1 may take its time) is a zombie: it is
      // gone, though /proc still shows its v2 group (the sandbox's, now that it has one there).
      const zombie = / Z /.test(
        (await execa("cat", [`/proc/${pid}/stat`], { reject: false })).stdout.replace(/^.*\)/, ")"),
      );
      if (!zombie && (await execa("cat", [`/proc/${pid}/cgroup`], { reject: false })).stdout.includes("/forage/mon"))
        ours.push(pid);
    }
    expect(ours.length).toBe(1);
  });
});
