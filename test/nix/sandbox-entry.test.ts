import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileFilter } from "../../runtime/seccomp/compile.js";
import { enterHelperPath, enterMountPath, filterMountPath } from "../../runtime/seccomp/sandbox-filter.js";
import { runningArch } from "../../runtime/seccomp/syscall-tables.js";
import { writeCaseOutput } from "../support/generated-case.js";
import { nixBuild, nixString } from "../support/nix.js";
import { flakePrelude } from "../support/nixos-routes.js";
import { isRoot, toolsAvailable } from "../support/tools.js";

/*
 * A NixOS sandbox's own services put what the agent runs under the sandbox's seccomp filter, as
 * forage-ctl does for everything it starts inside: the session service (its home seed and its
 * tmux) and the agent's login shell (what sshd and tmux start) go through forage-enter at the
 * paths forage-ctl binds in. Built with the real nix-build from a generated config against the
 * stand-in NixOS, then run with the real forage-enter and filter in a mount namespace of the test's.
 */
const tools = toolsAvailable("nix-build", "unshare", "setpriv", "python3");

const config = `user: alice
templates:
  agentbox:
    description: an agent reachable over ssh
    ssh: true
    agents:
      helper: { package: bashInteractive, executable: bash }
`;

describe.skipIf(!tools.run || !isRoot())("a NixOS sandbox's own entry points run under the sandbox's filter", () => {
  let dir = "";
  let entry: { session: string; seed: string; shell: string };
  const status = "grep -E '^(NoNewPrivs|Seccomp|Seccomp_filters):' /proc/self/status";

  /** Runs argv as uid 65534 in a mount namespace where forage-enter and a compiled filter are where forage-ctl binds them. */
  const withEntryBound = (argv: string[]): { status: number | null; stdout: string; stderr: string } => {
    const bind = `mount -t tmpfs tmpfs /run/forage && touch ${enterMountPath} ${filterMountPath} && mount --bind "$1" ${enterMountPath} && mount --bind "$2" ${filterMountPath} && shift 2 && exec "$@"`;
    const env = { PATH: "/usr/sbin:/usr/bin:/sbin:/bin", HOME: "/nonexistent" };
    const result = spawnSync(
      "unshare",
      [
        "-m",
        "--propagation",
        "private",
        "sh",
        "-c",
        bind,
        "sh",
        enterHelperPath(),
        join(dir, "filter.bpf"),
        "setpriv",
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        "--",
        ...argv,
      ],
      { encoding: "utf8", env },
    );
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "forage-entry-"));
    // The agent's uid reads the filter and the login script here.
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, "forage.yaml"), config);
    writeFileSync(join(dir, "filter.bpf"), compileFilter(runningArch()));
    const generated = await writeCaseOutput(join(dir, "generated"), join(dir, "forage.yaml"));
    // The stand-in's bashInteractive is a fake that prints its arguments: here the host's real bash, to run.
    const hostBash = `derivation { name = "bash-interactive"; system = builtins.currentSystem; builder = "/bin/sh"; PATH = "/usr/bin:/bin"; args = [ "-c" "mkdir -p $out/bin && ln -s /bin/bash $out/bin/bash" ]; } // { pname = "bash"; shellPath = "/bin/bash"; }`;
    const overlay = `(final: prev: { bashInteractive = ${hostBash}; })`;
    const system = `(nixpkgs.lib.nixosSystem { modules = [ (import (/. + ${nixString(generated)} + "/containers/agentbox.nix") { forage = self; uid = 1000; gid = 100; }).module { nixpkgs.hostPlatform = system; nixpkgs.overlays = [ ${overlay} ]; } ]; }).config`;
    // One derivation that names the three, so building it builds them; its output lists their paths.
    const listed =
      nixBuild(`let ${flakePrelude} sys = ${system}; session = sys.systemd.services.forage-session.serviceConfig; shell = sys.users.users.agent.shell; in
      derivation { name = "entry-points"; system = builtins.currentSystem; builder = "/bin/sh"; PATH = "/usr/bin:/bin";
        args = [ "-c" "printf '%s\\n' \${session.ExecStart} \${session.ExecStartPre} \${shell}\${shell.shellPath} > $out" ]; }`);
    const [session = "", seed = "", shell = ""] = readFileSync(listed, "utf8").trim().split("\n");
    entry = { session, seed, shell };
  }, 180_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("has the session service start its home seed and its tmux session through forage-enter and the sandbox's filter", () => {
    for (const script of [entry.session, entry.seed]) {
      expect(readFileSync(script, "utf8")).toMatch(
        new RegExp(
          `\\nexec ${enterMountPath} ${filterMountPath} '/nix/store/[a-z0-9]{32}-forage-(tmux-session|home-seed-copy)/bin/[a-z-]+' "\\$@"\\n`,
        ),
      );
    }
  });

  it("gives the agent a login shell that runs bash under the filter (control: bash itself has none)", () => {
    expect(withEntryBound(["bash", "-c", status])).toMatchObject({
      status: 0,
      stdout: "NoNewPrivs:\t0\nSeccomp:\t0\nSeccomp_filters:\t0\n",
    });
    expect(withEntryBound([entry.shell, "-c", status])).toMatchObject({
      status: 0,
      stdout: "NoNewPrivs:\t1\nSeccomp:\t2\nSeccomp_filters:\t1\n",
    });
    // A login (no arguments, as sshd and tmux start it) is a login shell, under the filter too.
    writeFileSync(join(dir, "login-script"), `shopt -q login_shell && echo login\n${status}\n`, { mode: 0o644 });
    expect(withEntryBound(["sh", "-c", `exec "$0" < "$1"`, entry.shell, join(dir, "login-script")])).toMatchObject({
      status: 0,
      stdout: "login\nNoNewPrivs:\t1\nSeccomp:\t2\nSeccomp_filters:\t1\n",
    });
  });

  it("refuses in the login shell what the host-root filter refuses (btrfs subvolumes, TIOCSTI), not only what systemd's could", () => {
    const probe = `import fcntl, errno
for request in (0x5412, 0x5000940e):
    try:
        fcntl.ioctl(0, request, bytearray(4096))
        print("allowed")
    except OSError as error:
        print(errno.errorcode[error.errno])`;
    const python = "/usr/bin/python3";
    expect(withEntryBound([entry.shell, "-c", `${python} -c '${probe}' </dev/null`])).toMatchObject({
      stdout: "EPERM\nEPERM\n",
    });
    // Control: outside the filter the kernel itself answers (not a terminal, not a btrfs file).
    expect(withEntryBound(["bash", "-c", `${python} -c '${probe}' </dev/null`])).toMatchObject({
      stdout: "ENOTTY\nENOTTY\n",
    });
  });

  it("runs nothing when forage-enter or the filter is missing (a container not started by forage-ctl)", () => {
    for (const script of [entry.session, entry.shell]) {
      const result = spawnSync(script, ["-c", "echo ran"], { encoding: "utf8" });
      expect(result.status).toBe(126);
      expect(result.stdout).toBe("");
      expect(result.stderr).toBe(
        `forage: ${enterMountPath} or ${filterMountPath} is missing: a sandbox runs only as forage-ctl starts it\n`,
      );
    }
  });
});
