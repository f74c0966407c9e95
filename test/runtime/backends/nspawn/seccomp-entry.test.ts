import { describe, expect, it } from "vitest";
import { nspawnArgs } from "../../../../runtime/backends/nspawn/container-process.js";
import { execArgs } from "../../../../runtime/seccomp/exec-args.js";
import { runtimePaths } from "../../../../runtime/core/paths.js";
import { enterArgv, enterHelperPath, sandboxFilterPath } from "../../../../runtime/seccomp/sandbox-filter.js";

describe("where the seccomp helper sits on the way into a sandbox", () => {
  it("enters from the host in one process: joins, drops to the agent, then loads the sandbox's program and runs the command", () => {
    const paths = runtimePaths("/var/lib/forage");
    const argv = execArgs(paths, {
      sandbox: "demo",
      leaderPid: 42,
      cgroupProcs: ["/sys/fs/cgroup/forage/demo.f1/cgroup.procs"],
      user: { uid: 1000, gid: 1000 },
      auditId: 7,
      cwd: "/workspace",
      command: ["git", "--version"],
      env: { PATH: "/usr/bin", TERM: "dumb" },
    });
    expect(argv[0]).toBe(enterHelperPath());
    expect(argv.slice(1, -3)).toEqual([
      "--join=42",
      "--cgroup=/sys/fs/cgroup/forage/demo.f1/cgroup.procs",
      "--user=1000:1000",
      "--cwd=/workspace",
      "--env=PATH=/usr/bin",
      "--env=TERM=dumb",
      "--audit-id=7",
    ]);
    expect(argv.slice(-3)).toEqual([sandboxFilterPath(paths, "demo"), "git", "--version"]);
  });

  it("keeps root's listed capabilities only, and never both a user and capabilities", () => {
    const argv = execArgs(runtimePaths("/var/lib/forage"), {
      sandbox: "demo",
      leaderPid: 42,
      cgroupProcs: [],
      user: null,
      rootCapabilities: ["setuid", "kill"],
      cwd: "/",
      command: ["/usr/sbin/sshd"],
      env: {},
    });
    expect(argv).toContain("--keep-caps=setuid,kill");
    expect(argv.some((arg) => arg.startsWith("--user="))).toBe(false);
  });

  it("wraps the host root's placeholder payload", () => {
    const argv = nspawnArgs({
      root: "/r",
      hostname: "h",
      payload: { kind: "placeholder", user: "agent", enter: enterArgv() },
      networkNamespacePath: "/run/netns/f1",
      binds: [],
      logFile: "/l",
    });
    expect(argv.slice(-4)).toEqual(["/run/forage/enter", "/run/forage/seccomp.bpf", "/usr/bin/sleep", "infinity"]);
  });
});
