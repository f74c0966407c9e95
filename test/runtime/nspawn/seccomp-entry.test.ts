import { describe, expect, it } from "vitest";
import { nspawnArgs } from "../../../runtime/nspawn/container-process.js";
import { execArgs } from "../../../runtime/nspawn/exec-args.js";
import { enterArgv } from "../../../runtime/seccomp/sandbox-filter.js";

describe("where the seccomp helper sits on the way into a sandbox", () => {
  it("runs inside the namespaces (after nsenter) and before setpriv drops privileges", () => {
    const argv = execArgs({
      leaderPid: 42,
      toolDir: "/usr/bin",
      user: { name: "agent", uid: 1000, gid: 1000 },
      enter: enterArgv(),
      cwd: "/workspace",
      command: ["true"],
      env: {},
    });
    const helper = argv.indexOf("/run/forage/enter");
    expect(argv.slice(helper, helper + 2)).toEqual(["/run/forage/enter", "/run/forage/seccomp.bpf"]);
    expect(argv.lastIndexOf("--", helper)).toBe(argv.indexOf("--"));
    expect(argv[0]).toBe("nsenter");
    expect(argv[helper + 2]).toBe("/usr/bin/setpriv");
  });

  it("wraps the host root's placeholder payload", () => {
    const argv = nspawnArgs({ root: "/r", hostname: "h", payload: { kind: "placeholder", user: "agent", enter: enterArgv() }, networkNamespacePath: "/run/netns/f1", binds: [], logFile: "/l" });
    expect(argv.slice(-4)).toEqual(["/run/forage/enter", "/run/forage/seccomp.bpf", "/usr/bin/sleep", "infinity"]);
  });
});
