import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { TestHost } from "./harness.js";

/*
 * forage-ctl checkpoint / restore on the gvisor runtime, with the real runsc: a sandbox saved
 * whole and run again where it was, what is refused (and left running) when it cannot be saved,
 * and what stop, start, gc and down make of a saved one.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "ip", "tmux", "runsc", "conntrack");

const templates = `
  walled:
    extends: basic
    runtime: gvisor
  walled-hostnet:
    extends: basic
    runtime: gvisor
    gvisor: { network: host }
  shared-kernel:
    extends: basic
    runtime: nspawn
`;

/** A loop that counts in its own memory (a bash variable) and writes each count to /tmp/count. */
const counter =
  "nohup bash -c 'i=0; while :; do i=$((i+1)); echo $i > /tmp/count; sleep 0.2; done' >/dev/null 2>&1 & echo $! > /tmp/counter.pid";

describe.skipIf(!tools.run || !isRoot())("forage-ctl checkpoint and restore", () => {
  const host = new TestHost("10.196", "nobody", templates);
  afterAll(() => host.cleanup());
  const count = async (name: string): Promise<number> => Number((await host.sh(name, "cat /tmp/count")).trim());
  const hostSide = async (name: string): Promise<string> => `10.196.${await host.slotOf(name)}.1`;

  it("saves a running gvisor sandbox whole and runs it again where it was: its processes, memory, /tmp and tmux session", async () => {
    const up = await host.run(["up", "cp", "-t", "walled", "-w", host.workspace("cp")]);
    expect(up.exitCode, up.stderr).toBe(0);
    await host.sh("cp", `echo only-in-memory > /tmp/kept; ${counter}`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const pid = (await host.sh("cp", "cat /tmp/counter.pid")).trim();
    const before = await count("cp");
    expect(before).toBeGreaterThan(1);

    const saved = await host.run(["checkpoint", "cp", "--json"]);
    expect(saved.exitCode, saved.stderr).toBe(0);
    const checkpoint = JSON.parse(saved.stdout) as { name: string; bytes: number; savedAt: string };
    expect(checkpoint.name).toBe("cp");
    expect(checkpoint.bytes).toBeGreaterThan(100_000);

    // Saved, it runs nothing, says so, and is nothing for gc to clean up.
    expect((await host.run(["status", "cp"])).stdout).toMatch(/^status\s+checkpointed$/m);
    const refused = await host.run(["exec", "cp", "--", "true"]);
    expect(refused.exitCode).toBe(5);
    expect(refused.stderr).toContain("is checkpointed (forage-ctl restore cp");
    expect((await host.run(["gc"])).stdout).toContain("nothing to clean up");

    const restored = await host.run(["restore", "cp"]);
    expect(restored.exitCode, restored.stderr).toBe(0);
    expect(restored.stdout).toBe("restored cp\n");
    expect((await host.run(["status", "cp"])).stdout).toMatch(/^status\s+running$/m);
    // The same process, counting on from what it held in memory (started afresh it would be at 1).
    expect(await host.sh("cp", `kill -0 ${pid} && echo alive`)).toBe("alive\n");
    const after = await count("cp");
    expect(after).toBeGreaterThanOrEqual(before);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await count("cp")).toBeGreaterThan(after);
    // gVisor's own /tmp lives in its memory: the image brought it back.
    expect(await host.sh("cp", "cat /tmp/kept")).toBe("only-in-memory\n");
    expect(await host.sh("cp", "tmux ls -F '#{session_name}'")).toBe("forage\n");
    const events = (await host.run(["audit-log", "cp", "--json"])).stdout;
    expect(events).toContain('"event":"checkpoint"');
    expect(events).toContain('"event":"restore"');
  }, 120_000);

  it("refuses, the sandbox running on, while it holds a TCP connection on its link; with --wait it waits first and says so", async () => {
    // A connection to the host's end (the DNS filter takes TCP on port 53): the network works after the restore.
    await host.sh("cp", `nohup bash -c 'exec 3<>/dev/tcp/${await hostSide("cp")}/53; sleep 60' >/dev/null 2>&1 &`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const refused = await host.run(["checkpoint", "cp"]);
    expect(refused.exitCode).toBe(5);
    expect(refused.stderr).toMatch(/1 TCP connection\(s\) on its link .*:53 ESTABLISHED/);
    expect(refused.stderr).toContain("nothing was saved and it runs on");
    const waited = await host.run(["checkpoint", "cp", "--wait", "2"]);
    expect(waited.exitCode).toBe(5);
    expect(waited.stderr).toContain("waiting up to 2 s for the sandbox's 1 TCP connection(s) to end");
    expect(waited.stderr).toContain("(waited 2 s)");
    // Still running, and not paused: its counter goes on.
    const now = await count("cp");
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await count("cp")).toBeGreaterThan(now);
    expect((await host.run(["status", "cp"])).stdout).toMatch(/^status\s+running$/m);
  }, 60_000);

  it("start runs a checkpointed sandbox afresh, discarding its checkpoint, and says so", async () => {
    const up = await host.run(["up", "fresh", "-t", "walled", "-w", host.workspace("fresh")]);
    expect(up.exitCode, up.stderr).toBe(0);
    await host.sh("fresh", "echo gone-at-start > /tmp/kept");
    expect((await host.run(["checkpoint", "fresh"])).exitCode).toBe(0);
    const started = await host.run(["start", "fresh"]);
    expect(started.exitCode, started.stderr).toBe(0);
    expect(started.stderr).toContain("discards its checkpoint");
    expect(await host.sh("fresh", "cat /tmp/kept 2>/dev/null || echo none")).toBe("none\n");
    const again = await host.run(["restore", "fresh"]);
    expect(again.exitCode).toBe(64);
    expect(again.stderr).toContain("is running");
  }, 120_000);

  it("removes a checkpointed sandbox entirely on down: image, root, namespace and cgroup (runsc's record went at the checkpoint)", async () => {
    const up = await host.run(["up", "gone", "-t", "walled", "-w", host.workspace("gone")]);
    expect(up.exitCode, up.stderr).toBe(0);
    const slot = await host.slotOf("gone");
    expect((await host.run(["checkpoint", "gone"])).exitCode).toBe(0);
    const run = host.env.FORAGE_RUN_DIR ?? "";
    // What the checkpointed sandbox holds, each there before the down (else its absence after proves nothing).
    const { cgroup } = JSON.parse(readFileSync(join(host.stateDir, "sandboxes/gone.json"), "utf8")) as {
      cgroup: { directories: string[] };
    };
    const held = [join(run, "roots/gone"), `/run/netns/f${slot}`, ...cgroup.directories];
    expect(cgroup.directories.length).toBeGreaterThan(0);
    for (const path of held) expect(existsSync(path), path).toBe(true);
    // runsc's record of the saved container went at the checkpoint (it could not delete it itself).
    expect(readdirSync(join(run, "gvisor/state")).filter((file) => file.startsWith(`f${slot}_`))).toEqual([]);
    expect(existsSync(join(run, "gvisor/bundles/gone/checkpoint/checkpoint.img"))).toBe(true);
    // The image holds the sandbox's memory: root's alone.
    expect(statSync(join(run, "gvisor/bundles/gone/checkpoint")).mode & 0o777).toBe(0o700);
    const down = await host.run(["down", "gone"]);
    expect(down.exitCode, down.stderr).toBe(0);
    expect(existsSync(join(run, "gvisor/bundles/gone"))).toBe(false);
    for (const path of held) expect(existsSync(path), path).toBe(false);
    expect(readdirSync(join(run, "gvisor/state")).filter((file) => file.startsWith(`f${slot}_`))).toEqual([]);
  }, 120_000);

  it("refuses a gvisor sandbox on the host's network stack, which runsc cannot save; it runs on", async () => {
    const up = await host.run(["up", "hostnet", "-t", "walled-hostnet", "-w", host.workspace("hostnet")]);
    expect(up.exitCode, up.stderr).toBe(0);
    const refused = await host.run(["checkpoint", "hostnet"]);
    expect(refused.exitCode).toBe(64);
    expect(refused.stderr).toContain("gvisor.network: host");
    expect(await host.sh("hostnet", "echo on")).toBe("on\n");
  }, 120_000);

  it("refuses on a runtime that cannot checkpoint, naming the one that can; the sandbox runs on", async () => {
    const up = await host.run(["up", "shared", "-t", "shared-kernel", "-w", host.workspace("shared")]);
    expect(up.exitCode, up.stderr).toBe(0);
    const refused = await host.run(["checkpoint", "shared"]);
    expect(refused.exitCode).toBe(64);
    expect(refused.stderr).toContain("runs on the nspawn runtime, which cannot checkpoint: only a gvisor sandbox can");
    expect((await host.run(["restore", "shared"])).exitCode).toBe(64);
    expect(await host.sh("shared", "echo on")).toBe("on\n");
    const listed = JSON.parse((await host.run(["runtime", "--json"])).stdout) as {
      runtimes: { name: string; capabilities: { checkpoint: boolean } }[];
    };
    expect(Object.fromEntries(listed.runtimes.map((r) => [r.name, r.capabilities.checkpoint]))).toMatchObject({
      gvisor: true,
      nspawn: false,
    });
  }, 120_000);
});
