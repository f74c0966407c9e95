import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliPath, repoRoot } from "../cli/run-cli.js";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { agentUid, TestHost } from "./harness.js";
import { installStandInSystem } from "./host-user.js";

/*
 * Escapes through the kernel's interfaces, attempted as the agent in real host-root sandboxes:
 * each must fail with EPERM under the seccomp filter while the program carries on. Every attempt
 * has a control that succeeds where the protection is off: the same call on the host as the same
 * uid, or in a sandbox whose template allows the group back.
 *   sc:  the default filter (and sshd, so SSH sessions are covered too)
 *   ns:  namespaces allowed back (mount is still refused inside a new user namespace)
 *   all: namespaces, mount, keyring, io-uring and userfaultfd allowed back
 *   scn, alln: sc's and all's filters on the NixOS runtime (nspawn-nix, the stand-in system of
 *        test/nix/stand-in), whose agents must get the same filter, not systemd's weaker one
 */
const tools = toolsAvailable(
  "systemd-nspawn",
  "nsenter",
  "setpriv",
  "ip",
  "flock",
  "gcc",
  "keyctl",
  "unshare",
  "ssh",
  "sshd",
  "nix-build",
);
const gvisor = toolsAvailable("runsc");

const templates = `  sc:
    extends: sshable
  ns:
    extends: basic
    seccomp: { allow: [namespaces] }
  all:
    extends: basic
    seccomp: { allow: [namespaces, mount, keyring, io-uring, userfaultfd] }
  nixsc:
    extends: basic
  nixall:
    extends: all
`;

describe.skipIf(!tools.run || !isRoot())("the seccomp filter and the keyring, attacked from a real sandbox", () => {
  const host = new TestHost("10.240", "nobody", templates);
  const probe = join(host.dir, "seccomp-probe");
  const asAgentOnHost = (...argv: string[]) =>
    execa("setpriv", [`--reuid=${agentUid}`, `--regid=${agentUid}`, "--clear-groups", ...argv], {
      reject: false,
      stripFinalNewline: false,
    });
  const run = (sandbox: string, ...argv: string[]) => host.run(["exec", sandbox, "--", ...argv]);
  const refused = { exitCode: 1, stdout: "errno 1\n" };
  const allowed = { exitCode: 0, stdout: "ok\n" };

  beforeAll(async () => {
    execFileSync("gcc", ["-static", "-O2", "-o", probe, join(repoRoot, "test/integration/seccomp-probe.c")]);
    installStandInSystem(host.dir, host.extraEnv, ["nixsc", "nixall"]);
    for (const [name, template, runtime] of [
      ["sc", "sc", "nspawn"],
      ["ns", "ns", "nspawn"],
      ["all", "all", "nspawn"],
      ["scn", "nixsc", "nspawn-nix"],
      ["alln", "nixall", "nspawn-nix"],
    ] as const) {
      const workspace = host.workspace(name);
      copyFileSync(probe, join(workspace, "probe"));
      chmodSync(join(workspace, "probe"), 0o755);
      const up = await host.run(["up", name, "-t", template, "--runtime", runtime, "-w", workspace]);
      expect(up.stderr).toBe("");
      expect(up.exitCode).toBe(0);
    }
  }, 120_000);
  afterAll(async () => {
    await asAgentOnHost("keyctl", "clear", "@u");
    await host.cleanup();
  });

  it("refuses a user namespace from unshare -Ur (control: allowed back, and on the host)", async () => {
    const attempt = await run("sc", "unshare", "-Ur", "true");
    expect(attempt).toMatchObject({ exitCode: 1, stderr: expect.stringContaining("Operation not permitted") });
    expect(await run("ns", "unshare", "-Ur", "true")).toMatchObject({ exitCode: 0 });
    expect((await asAgentOnHost("unshare", "-Ur", "true")).exitCode).toBe(0);
  });

  it("refuses a mount namespace from unshare -m (control: namespaces and mount allowed back)", async () => {
    expect(await run("sc", "unshare", "-Urm", "true")).toMatchObject({
      exitCode: 1,
      stderr: expect.stringContaining("Operation not permitted"),
    });
    // unshare -m also makes the new mounts private (a mount call), so it needs the mount group too.
    expect(await run("all", "unshare", "-Urm", "true")).toMatchObject({ exitCode: 0 });
  });

  it("refuses clone with CLONE_NEWUSER (control: allowed back, and on the host)", async () => {
    expect(await run("sc", "/workspace/probe", "clone-userns")).toMatchObject(refused);
    expect(await run("ns", "/workspace/probe", "clone-userns")).toMatchObject(allowed);
    expect(await asAgentOnHost(probe, "clone-userns")).toMatchObject(allowed);
  });

  it("refuses mount even as root of a user namespace it may create (control: mount allowed back)", async () => {
    const mount = ["unshare", "-Urm", "sh", "-c", "mount -t tmpfs none /mnt && echo mounted"];
    const attempt = await run("ns", ...mount);
    expect(attempt.stdout).toBe("");
    // util-linux's mount words EPERM as "permission denied".
    expect(attempt.stderr).toMatch(/permission denied|Operation not permitted/i);
    expect(await run("all", ...mount)).toMatchObject({ exitCode: 0, stdout: "mounted\n" });
  });

  it("refuses io_uring and userfaultfd (control: allowed back, and on the host)", async () => {
    for (const call of ["io_uring", "userfaultfd"]) {
      expect(await run("sc", "/workspace/probe", call)).toMatchObject(refused);
      expect(await run("all", "/workspace/probe", call)).toMatchObject(allowed);
      expect(await asAgentOnHost(probe, call)).toMatchObject(allowed);
    }
  });

  it("refuses the same calls to the agent on a NixOS system (control: allowed back there)", async () => {
    for (const call of ["clone-userns", "io_uring", "userfaultfd"]) {
      expect(await run("scn", "/workspace/probe", call)).toMatchObject(refused);
      expect(await run("alln", "/workspace/probe", call)).toMatchObject(allowed);
    }
    expect(await run("scn", "/workspace/probe", "int80")).toMatchObject(refused);
  });

  it("refuses them in the agent's session that the NixOS system started itself, not only in exec (control: allowed back there)", async () => {
    // A window of the agent's tmux session: started by the session's server, which the system's own service ran.
    const inSession = async (sandbox: string, call: string): Promise<string> => {
      const window = await run(
        sandbox,
        "tmux",
        "new-window",
        "-d",
        "-t",
        "forage",
        `/workspace/probe ${call} > /workspace/session-${call}`,
      );
      expect(window.exitCode, window.stderr).toBe(0);
      const result = join(host.workspace(sandbox), `session-${call}`);
      // The probe prints one whole line at its end.
      await expect
        .poll(() => (existsSync(result) ? readFileSync(result, "utf8") : ""), { timeout: 20_000 })
        .toMatch(/\n$/);
      return readFileSync(result, "utf8");
    };
    for (const call of ["clone-userns", "io_uring", "userfaultfd"]) {
      expect(await inSession("scn", call)).toBe(refused.stdout);
      expect(await inSession("alln", call)).toBe(allowed.stdout);
    }
  });

  it("refuses the i386 entry point (int 0x80) (control: on the host)", async () => {
    expect(await run("sc", "/workspace/probe", "int80")).toMatchObject(refused);
    expect(await run("all", "/workspace/probe", "int80")).toMatchObject(refused);
    expect(await asAgentOnHost(probe, "int80")).toMatchObject(allowed);
  });

  it("refuses keyctl on the session and user keyrings (control: keyring allowed back)", async () => {
    for (const keyring of ["@s", "@u"]) {
      expect(await run("sc", "keyctl", "show", keyring)).toMatchObject({
        exitCode: 1,
        stderr: expect.stringContaining("Operation not permitted"),
      });
      expect((await run("all", "keyctl", "show", keyring)).exitCode).toBe(0);
    }
  });

  it("keeps a key in the host user's user keyring unreadable (control: readable on the host as the same uid)", async () => {
    const added = await asAgentOnHost("keyctl", "add", "user", "forage-host-secret", "host-secret-value", "@u");
    expect(added.exitCode).toBe(0);
    const read = ["sh", "-c", "keyctl print $(keyctl search @u user forage-host-secret)"];
    expect(await asAgentOnHost(...read)).toMatchObject({ exitCode: 0, stdout: "host-secret-value\n" });
    const attempt = await run("sc", ...read);
    expect(attempt.stdout).not.toContain("host-secret-value");
    expect(attempt.stderr).toContain("Operation not permitted");
    // Keyrings are per uid, not per sandbox: with the group allowed back the key is found (status
    // warns), but its payload stays unreadable: the fresh session keyring does not hold @u.
    expect((await run("all", "keyctl", "search", "@u", "user", "forage-host-secret")).exitCode).toBe(0);
    const allowedBack = await run("all", ...read);
    expect(allowedBack.stdout).not.toContain("host-secret-value");
    expect(allowedBack.stderr).toContain("Permission denied");
  });

  it("gives every command a fresh session keyring: a key in the caller's session keyring is not inside", async () => {
    const script = 'keyctl add user forage-caller-key caller-secret @s >/dev/null && keyctl show @s && exec "$@"';
    const exec = [process.execPath, cliPath, "--config", host.config, "exec", "all", "--", "keyctl", "show", "@s"];
    const result = await execa("keyctl", ["session", "-", "sh", "-c", script, "sh", ...exec], {
      env: host.env,
      extendEnv: false,
      cwd: repoRoot,
      reject: false,
    });
    const [onHost, inside] = result.stdout.split(/(?=Keyring)/);
    expect(onHost).toContain("forage-caller-key");
    expect(result.exitCode).toBe(0);
    expect(inside).toMatch(/_ses/);
    expect(inside).not.toContain("forage-caller-key");
  });

  it("covers SSH sessions and the container's payload, not only exec", async () => {
    const ssh = await host.run(["ssh", "sc", "-i", host.sshKey, "--", "unshare", "-Ur", "true"]);
    expect(ssh.exitCode).not.toBe(0);
    expect(ssh.stderr).toContain("Operation not permitted");
    // Every process in the sandbox but the stub init (its payload, tmux, sshd, this shell) is filtered.
    const modes = await host.sh(
      "sc",
      "for s in /proc/[0-9]*/status; do case $s in /proc/1/status) ;; *) grep -h '^Seccomp:' $s;; esac; done 2>/dev/null | sort | uniq -c",
    );
    expect(modes.trim()).toMatch(/^\d+ Seccomp:\s+2$/);
  });

  it("warns in status when a template allows anything back, and says what in --json", async () => {
    expect((await host.run(["status", "sc"])).stdout).not.toContain("warning");
    const status = (await host.run(["status", "all"])).stdout;
    expect(status).toMatch(
      /^warning +the seccomp filter allows back io-uring \(io_uring_setup, io_uring_enter, io_uring_register\), keyring/m,
    );
    expect(status).toContain("namespaces (unshare, setns, clone, clone3)");
    const json = JSON.parse((await host.run(["status", "all", "--json"])).stdout) as {
      seccomp: { allowed: string[]; warning: string };
    };
    expect(json.seccomp.allowed).toEqual(["io-uring", "keyring", "mount", "namespaces", "userfaultfd"]);
    expect(json.seccomp.warning).toContain("user keyring");
  });

  it("counts what the filter refused, per sandbox, in status", async () => {
    type Counted = { seccomp: { refused: { total: number; bySyscall: Record<string, number> } } };
    const count = async (name: string) =>
      (JSON.parse((await host.run(["status", name, "--json"])).stdout) as Counted).seccomp.refused;
    // The first refusal of this file (unshare in sc) is counted; the kernel may drop later ones in a burst.
    expect((await count("sc")).bySyscall.unshare).toBeGreaterThanOrEqual(1);
    expect((await host.run(["status", "sc"])).stdout).toMatch(/^refused +\d+ syscalls by seccomp \(.*unshare \d+/m);
    // Controls: ns was allowed its unshare calls and sc's are not put on ns; all's keyctl calls were allowed.
    expect(await count("ns")).not.toHaveProperty("bySyscall.unshare");
    expect(await count("all")).not.toHaveProperty("bySyscall.keyctl");
  });
});

/*
 * The same attacks on the gvisor runtime: the filter is applied inside gVisor's kernel (forage-enter
 * --inside), so each call it refuses is refused there; where a call is allowed back, gVisor's own
 * kernel answers it, never the host's (the second wall: what it does not implement fails there).
 *   gsc:  the default filter;  gall: namespaces, mount, keyring, io-uring and userfaultfd allowed back
 */
describe.skipIf(!tools.run || !gvisor.run || !isRoot())(
  "the seccomp filter inside gVisor, attacked from a real sandbox",
  () => {
    const host = new TestHost("10.215", "nobody", templates);
    const run = (sandbox: string, ...argv: string[]) => host.run(["exec", sandbox, "--", ...argv]);
    const refused = { exitCode: 1, stdout: "errno 1\n" };

    beforeAll(async () => {
      const probe = join(host.dir, "seccomp-probe");
      execFileSync("gcc", ["-static", "-O2", "-o", probe, join(repoRoot, "test/integration/seccomp-probe.c")]);
      for (const [name, template] of [
        ["gsc", "basic"],
        ["gall", "all"],
      ] as const) {
        const workspace = host.workspace(name);
        copyFileSync(probe, join(workspace, "probe"));
        chmodSync(join(workspace, "probe"), 0o755);
        const up = await host.run(["up", name, "-t", template, "--runtime", "gvisor", "-w", workspace]);
        expect(up.stderr).toBe("");
        expect(up.exitCode).toBe(0);
      }
    }, 120_000);
    afterAll(() => host.cleanup());

    it("refuses user namespaces, unshare -Ur and clone (control: allowed back, gVisor makes them)", async () => {
      for (const argv of [
        ["unshare", "-Ur", "true"],
        ["unshare", "-Urm", "true"],
      ])
        expect(await run("gsc", ...argv)).toMatchObject({
          exitCode: 1,
          stderr: "unshare: unshare failed: Operation not permitted\n",
        });
      expect(await run("gsc", "/workspace/probe", "clone-userns")).toMatchObject(refused);
      expect(await run("gall", "unshare", "-Ur", "true")).toMatchObject({ exitCode: 0 });
      expect(await run("gall", "/workspace/probe", "clone-userns")).toMatchObject({ exitCode: 0, stdout: "ok\n" });
      // With mount allowed back too, gVisor itself refuses to change the root's propagation.
      expect(await run("gall", "unshare", "-Urm", "true")).toMatchObject({
        exitCode: 1,
        stderr: expect.stringContaining("cannot change root filesystem propagation: Operation not permitted"),
      });
    });

    it("refuses io_uring and userfaultfd (control: allowed back, gVisor runs io_uring and has no userfaultfd)", async () => {
      for (const call of ["io_uring", "userfaultfd"])
        expect(await run("gsc", "/workspace/probe", call)).toMatchObject(refused);
      expect(await run("gall", "/workspace/probe", "io_uring")).toMatchObject({ exitCode: 0, stdout: "ok\n" });
      expect(await run("gall", "/workspace/probe", "userfaultfd")).toMatchObject({ exitCode: 1, stdout: "errno 38\n" });
    });

    it("never reaches the host's i386 entry point: gVisor takes int 0x80 as its own 64-bit call (writev here, EBADF), not getpid", async () => {
      for (const sandbox of ["gsc", "gall"])
        expect(await run(sandbox, "/workspace/probe", "int80")).toMatchObject({ exitCode: 1, stdout: "errno 9\n" });
    });

    it("refuses keyctl on the session and user keyrings (control: allowed back, gVisor's own keyring answers instead of the filter)", async () => {
      for (const keyring of ["@s", "@u"]) {
        expect(await run("gsc", "keyctl", "show", keyring)).toMatchObject({
          exitCode: 1,
          stderr: expect.stringContaining("Operation not permitted"),
        });
        expect(await run("gall", "keyctl", "show", keyring)).toMatchObject({
          exitCode: 1,
          stderr: expect.stringContaining("Permission denied"),
        });
      }
    });
  },
);
