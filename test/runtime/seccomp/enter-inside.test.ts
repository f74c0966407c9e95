import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { compileFilter } from "../../../runtime/seccomp/compile.js";
import { enterHelperPath } from "../../../runtime/seccomp/sandbox-filter.js";
import { runningArch } from "../../../runtime/seccomp/syscall-tables.js";
import { isRoot } from "../../support/tools.js";

/*
 * forage-enter --inside: the way in after a runtime's own entry (gVisor's runsc exec), which joins
 * nothing and does the rest as --join does. Run here on the host, where "inside" is this process's
 * own namespaces: what it changes (uid, capabilities, environment, filter) is what is checked.
 */
describe.skipIf(!isRoot())("forage-enter --inside", () => {
  const dir = mkdtempSync(join(tmpdir(), "forage-inside-"));
  const filter = join(dir, "filter.bpf");
  writeFileSync(filter, compileFilter(runningArch(), []));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const enter = (...args: string[]) => execa(enterHelperPath(), ["--inside", ...args], { reject: false });

  it("drops to the user, with no capability, no_new_privs, the filter, and only the environment given", async () => {
    const run = await enter(
      "--user=65534:65534",
      "--cwd=/tmp",
      "--env=ONLY=this",
      "--env=PATH=/usr/bin:/bin",
      filter,
      "sh",
      "-c",
      "id -u; id -g; pwd; env | sort; grep -E '^(CapEff|NoNewPrivs|Seccomp):' /proc/self/status",
    );
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout.split("\n")).toEqual([
      "65534",
      "65534",
      "/tmp",
      "ONLY=this",
      "PATH=/usr/bin:/bin",
      "PWD=/tmp",
      "CapEff:\t0000000000000000",
      "NoNewPrivs:\t1",
      "Seccomp:\t2",
    ]);
  });

  it("refuses what the filter refuses in the command it runs (control: the same command without forage-enter)", async () => {
    // The control as the same uid: unprivileged user namespaces work here, without the filter.
    const control = await execa(
      "setpriv",
      ["--reuid=65534", "--regid=65534", "--clear-groups", "unshare", "--user", "true"],
      {
        reject: false,
      },
    );
    expect(control.exitCode, control.stderr).toBe(0);
    const run = await enter("--user=65534:65534", filter, "unshare", "--user", "true");
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain("Operation not permitted");
  });

  it("joins nothing: --join or --cgroup beside it is a usage error, and nothing runs", async () => {
    const joined = await enter("--join=1", filter, "/usr/bin/true");
    expect(joined).toMatchObject({ exitCode: 126 });
    expect(joined.stderr).toContain("--inside joins nothing: no --join or --cgroup");
    const grouped = await enter("--cgroup=/sys/fs/cgroup/x/cgroup.procs", filter, "/usr/bin/true");
    expect(grouped).toMatchObject({ exitCode: 126 });
  });
});
