import { chownSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { cliPath } from "../cli/run-cli.js";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { agentUid, TestHost } from "./harness.js";

/*
 * The gvisor runtime's own parts: chosen by the template, what status says of it, its platform,
 * and what gVisor's older kernel gets wrong that Forage mends. What it shares with the other
 * runtimes (isolation, network) is tested by those tests, parameterised by runtime.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "ip", "flock", "tmux", "runsc");

const templates = `
  walled:
    extends: basic
    runtime: gvisor
  walled-kvm:
    extends: basic
    runtime: gvisor
    gvisor: { platform: kvm }
  walled-hostnet:
    extends: basic
    runtime: gvisor
    gvisor: { network: host }
`;

describe.skipIf(!tools.run || !isRoot())("the gvisor runtime", () => {
  const host = new TestHost("10.250", "nobody", templates);
  afterAll(() => host.cleanup());

  it("is listed by forage-ctl runtime, available once runsc is installed", async () => {
    const listed = await host.run(["runtime", "--json"]);
    expect(listed.exitCode, listed.stderr).toBe(0);
    const { runtimes } = JSON.parse(listed.stdout) as {
      runtimes: { name: string; available: boolean; reason: string }[];
    };
    const gvisor = runtimes.find((runtime) => runtime.name === "gvisor");
    expect(gvisor).toMatchObject({ available: true, reason: "" });
  });

  it("is the runtime of a template that says runtime: gvisor, with no --runtime", async () => {
    const up = await host.run(["up", "gv", "-t", "walled", "-w", host.workspace("gv")]);
    expect(up.exitCode, up.stderr).toBe(0);
    const status = await host.run(["status", "gv"]);
    expect(status.stdout).toMatch(/^runtime\s+gvisor$/m);
    // gVisor's kernel answers: it says so, and which platform it runs on (ptrace or systrap, never guessed kvm).
    expect(status.stdout).toMatch(/^kernel\s+gVisor's \(runsc, platform (ptrace|systrap);/m);
    expect(await host.sh("gv", "cat /proc/version")).not.toContain((await import("node:os")).release());
  });

  it("lists files with ls -l: gVisor's (2022) refusal of statx's AT_NO_AUTOMOUNT is mended by the preloaded shim", async () => {
    await host.sh("gv", "echo x > /workspace/listed");
    expect(await host.sh("gv", "ls -l /workspace/listed | cut -d' ' -f1")).toBe("-rw-r--r--\n");
    expect(await host.sh("gv", "stat -c %s /workspace/listed")).toBe("2\n");
  });

  it("gives a command on a terminal a pseudo-terminal made inside (forage-enter --inside --terminal), relayed", async () => {
    // script(1) gives forage-ctl a terminal; the command sees the sandbox's own, never the host's.
    const command = [
      process.execPath,
      cliPath,
      "--config",
      host.config,
      "exec",
      "gv",
      "--",
      "sh",
      "-c",
      "tty; stty size",
    ];
    const shown = await execa("script", ["-qec", command.map((arg) => `'${arg}'`).join(" "), "/dev/null"], {
      env: host.env,
      extendEnv: false,
      reject: false,
      timeout: 30_000,
    });
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^\/dev\/pts\/\d+\r?$/m);
    expect(shown.stdout).toMatch(/^\d+ \d+\r?$/m);
  });

  it("answers socket calls with gVisor's own stack, or with gvisor.network host the host's in its namespace; status says which", async () => {
    const up = await host.run(["up", "gvh", "-t", "walled-hostnet", "-w", host.workspace("gvh")]);
    expect(up.exitCode, up.stderr).toBe(0);
    const stackOf = async (name: string) => {
      const status = (await host.run(["status", name])).stdout;
      const slot = await host.slotOf(name);
      // What the host's stack holds in the sandbox's namespace: netstack took the address from it.
      const hostSide = (await execa("ip", ["-n", `f${slot}`, "-o", "-4", "addr", "show", "dev", "eth0"])).stdout;
      const inside = await host.sh(name, "ip -o -4 addr show dev eth0 | grep -o 'inet [0-9.]*'");
      return { status: /network: (gVisor's own stack|the host's stack)/.exec(status)?.[1], hostSide, inside };
    };
    const own = await stackOf("gv");
    expect(own.status).toBe("gVisor's own stack");
    expect(own.hostSide).toBe("");
    expect(own.inside).toMatch(/^inet 10\.250\.\d+\.2\n$/);
    const borrowed = await stackOf("gvh");
    expect(borrowed.status).toBe("the host's stack");
    expect(borrowed.hostSide).toContain(borrowed.inside.trim());
    expect((await host.run(["down", "gvh", "-t", "1"])).exitCode).toBe(0);
  });

  it("holds its limits in the cgroup runsc runs in, as status reads them", async () => {
    expect((await host.run(["status", "gv"])).stdout).toMatch(/^limits\s+.*\(in force: its cgroup\)$/m);
    // gVisor's kernel (the sentry, status's pid) is in the sandbox's own group, under its limits.
    const { pid, slot } = JSON.parse((await host.run(["status", "gv", "--json"])).stdout) as {
      pid: number;
      slot: number;
    };
    expect(readFileSync(`/proc/${pid}/cgroup`, "utf8")).toContain(`/forage/gv.f${slot}\n`);
  });

  it("stops gracefully (its processes get SIGTERM and time to end), then starts again with its workspace and session", async () => {
    // A process of the agent's that says goodbye on SIGTERM: the reaper (PID 1) must outlive it.
    const script = join(host.dir, "workspaces/gv/graceful.sh");
    writeFileSync(script, "trap 'echo bye > /workspace/bye; exit 0' TERM\nwhile :; do sleep 0.2; done\n");
    chownSync(script, agentUid, agentUid);
    await host.sh("gv", "tmux new-window -d -t forage '/bin/sh /workspace/graceful.sh'; sleep 0.5");
    const stop = await host.run(["stop", "gv"]);
    expect(stop.exitCode, stop.stderr).toBe(0);
    expect(readFileSync(join(host.dir, "workspaces/gv/bye"), "utf8")).toBe("bye\n");
    expect((await host.run(["status", "gv"])).stdout).toMatch(/^status\s+stopped$/m);
    expect((await host.run(["exec", "gv", "--", "true"])).exitCode).not.toBe(0);
    const start = await host.run(["start", "gv"]);
    expect(start.exitCode, start.stderr).toBe(0);
    expect(await host.sh("gv", "cat /workspace/listed; tmux has-session -t forage && echo session")).toBe(
      "x\nsession\n",
    );
  });

  it("asks for kvm only where a guest really runs: refused with the probe's reason, or running on kvm", async () => {
    const up = await host.run(["up", "gk", "-t", "walled-kvm", "-w", host.workspace("gk")]);
    if (up.exitCode === 0) {
      expect((await host.run(["status", "gk"])).stdout).toMatch(/^kernel\s+gVisor's \(runsc, platform kvm;/m);
    } else {
      expect(up.stderr).toMatch(
        /gvisor\.platform "kvm": (a kvm guest did not run within 15 s|runsc could not run a kvm guest)/,
      );
      // Refused before anything was made.
      expect((await host.run(["status", "gk"])).exitCode).toBe(2);
    }
  });

  it("refuses a template with ssh (no sshd under gVisor yet), saying what to use, and leaves no sandbox behind", async () => {
    const up = await host.run(["up", "gs", "-t", "sshable", "--runtime", "gvisor", "-w", host.workspace("gs")]);
    expect(up.exitCode).not.toBe(0);
    expect(up.stderr).toContain(
      "template sshable has ssh: the gvisor runtime has no sshd yet; use forage-ctl attach or shell, or another runtime",
    );
    expect((await host.run(["status", "gs"])).exitCode).not.toBe(0);
    // Control: the nspawn runtime takes the same template.
    expect(
      (await host.run(["up", "gs", "-t", "sshable", "--runtime", "nspawn", "-w", host.workspace("gs")])).exitCode,
    ).toBe(0);
    expect((await host.run(["down", "gs"])).exitCode).toBe(0);
  });

  it("removes everything at down: runsc's container and processes, its bundle, the root", async () => {
    const { slot } = JSON.parse((await host.run(["status", "gv", "--json"])).stdout) as { slot: number };
    const bundle = join(host.dir, "run/gvisor/bundles/gv");
    const runscSees = () =>
      execa("runsc", [`--root=${join(host.dir, "run/gvisor/state")}`, "state", `f${slot}`], { reject: false });
    expect((await runscSees()).exitCode).toBe(0);
    expect((await host.run(["down", "gv"])).exitCode).toBe(0);
    expect((await runscSees()).exitCode).not.toBe(0);
    const naming = (await execa("ps", ["-eo", "args"])).stdout.split("\n").filter((line) => line.includes(bundle));
    expect(naming).toEqual([]);
    expect(existsSync(join(host.dir, "run/gvisor/bundles/gv"))).toBe(false);
    expect(existsSync(join(host.dir, "run/roots/gv"))).toBe(false);
  });
});
