import { execFileSync, spawnSync } from "node:child_process";
import { appendFileSync, chmodSync, copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { agentUid, TestHost } from "./harness.js";

/*
 * The classic escapes, tried as the agent in a real host-root sandbox. Each attempt has a control:
 * the same attack, in a sandbox, with the one protection that stops it switched off (root inside
 * the sandbox where the protection is a capability the agent lacks, a template that mounts what
 * the agent reaches for, a template that lifts a protection), so an attempt cannot pass only
 * because it was broken. Where the protection has no switch, and one would weaken every sandbox,
 * the test says so and uses the closest honest control.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "nft", "ping", "git", "tmux");
const gvisor = toolsAvailable("runsc");

/** Runs argv on the host as the sandbox's user (uid/gid 65534, no groups): the controls' "same uid". */
function asAgentUidOnHost(argv: string[]): { status: number | null; stdout: string } {
  const result = spawnSync("setpriv", [`--reuid=${agentUid}`, `--regid=${agentUid}`, "--clear-groups", "--", ...argv], {
    encoding: "utf8",
  });
  return { status: result.status, stdout: result.stdout };
}

const moreTemplates = `
  other-keyed:
    description: another agent with another key
    agents:
      keyed: { package: coreutils, executable: env, secretName: other-key, authEnvVar: OTHER_API_KEY }
  open-hooks:
    extends: basic
    workspace: { unprotected: [".git/hooks"] }
`;

/** A sandbox whose mounts include what the agent reaches for, at the same paths: the mount-namespace controls. */
const peekTemplate = (paths: string[]): string => `
  peek:
    extends: basic
    workspace:
      mounts:
${paths.map((path, i) => `        m${i}: { containerPath: ${path}, hostPath: ${path}, readOnly: true }\n`).join("")}`;

describe.each([
  { runtime: "nspawn", prefix: "10.248", runs: tools.run },
  { runtime: "gvisor", prefix: "10.216", runs: tools.run && gvisor.run },
])("classic escapes from a sandbox on the $runtime runtime, each with its control", ({ runtime, prefix, runs }) => {
  if (!runs || !isRoot()) return void it.skip("needs root and the runtime's tools");
  const otherSecret = `other-secret-${process.pid}`;
  const host = new TestHost(prefix, "nobody", moreTemplates, "", { secrets: { "other-key": otherSecret } });
  const canaryDir = join("/var/tmp", `forage-canary-${process.pid}`);
  const canary = join(canaryDir, "canary");
  const otherSecrets = join(host.dir, "secrets", "other");
  const abstractName = `forage-escape-${process.pid}`;
  let abstractServer: Server | undefined;
  let workspace = "";

  beforeAll(async () => {
    mkdirSync(canaryDir, { mode: 0o755 });
    writeFileSync(canary, "host-canary\n", { mode: 0o644 });
    appendFileSync(host.config, peekTemplate([canaryDir, otherSecrets]));
    workspace = host.workspace("esc");
    execFileSync("git", ["init", "-q", workspace]);
    execFileSync("chown", ["-R", `${agentUid}:${agentUid}`, workspace]);
    // peek last: it mounts the secrets directory `up other` makes.
    for (const [name, template] of [
      ["esc", "keyed"],
      ["other", "other-keyed"],
      ["hooks", "open-hooks"],
      ["peek", "peek"],
    ] as const) {
      const dir = name === "esc" ? workspace : host.workspace(name);
      if (name === "hooks") {
        execFileSync("git", ["init", "-q", dir]);
        execFileSync("chown", ["-R", `${agentUid}:${agentUid}`, dir]);
      }
      const up = await host.run(["up", name, "-t", template, "-w", dir, "--runtime", runtime]);
      expect(up.exitCode, up.stderr).toBe(0);
    }
  });
  afterAll(async () => {
    abstractServer?.close();
    rmSync(canaryDir, { recursive: true, force: true });
    await host.cleanup();
  });

  it("cannot read a world-readable host file outside its mounts (control: a sandbox that mounts its directory reads it)", async () => {
    const attack = `cat ${canary} 2>&1 || echo refused`;
    expect(asAgentUidOnHost(["cat", canary])).toMatchObject({ status: 0, stdout: "host-canary\n" });
    expect(await host.sh("peek", attack)).toBe("host-canary\n");
    expect(await host.sh("esc", attack)).toBe(`cat: ${canary}: No such file or directory\nrefused\n`);
  });

  it("cannot follow its init's root through /proc/1/root (control: root inside, with CAP_SYS_PTRACE, can, and finds the sandbox's own root)", async () => {
    // PID 1 is the sandbox's stub init, not dumpable: following its root takes CAP_SYS_PTRACE. And
    // its root is the sandbox's, so even root inside finds no host file there.
    const attack = (path: string): string => `cat /proc/1/root${path} 2>&1 || echo refused`;
    if (runtime === "gvisor") {
      // gVisor's kernel refuses even root inside (its PID 1 is not root's to trace); the path works
      // through a process of the agent's own: /proc/self/root reads the sandbox's root.
      expect(await host.rootSh("esc", attack("/etc/hostname"))).toBe(
        "cat: /proc/1/root/etc/hostname: Permission denied\nrefused\n",
      );
      expect(await host.sh("esc", "cat /proc/self/root/etc/hostname")).toBe("esc\n");
    } else
      expect(await host.rootSh("esc", `${attack("/etc/hostname")}; ${attack(canary)}`)).toBe(
        `esc\ncat: /proc/1/root${canary}: No such file or directory\nrefused\n`,
      );
    expect(await host.sh("esc", attack("/etc/hostname"))).toBe(
      "cat: /proc/1/root/etc/hostname: Permission denied\nrefused\n",
    );
    expect(await host.sh("esc", attack(canary))).toBe(`cat: /proc/1/root${canary}: Permission denied\nrefused\n`);
  });

  it("cannot read another sandbox's secret at its host path (control: a sandbox that mounts that directory reads it)", async () => {
    const path = join(otherSecrets, "other-key");
    const attack = `cat ${path} 2>&1 || echo refused`;
    expect(await host.sh("other", "cat /run/secrets/other-key")).toBe(`${otherSecret}\n`);
    expect(await host.sh("peek", attack)).toBe(`${otherSecret}\n`);
    expect(await host.sh("esc", "ls /run/secrets")).toBe("demo-key\n");
    expect(await host.sh("esc", attack)).toBe(`cat: ${path}: No such file or directory\nrefused\n`);
  });

  it("cannot reach another sandbox's secret through /proc/*/root (control: the same read in that sandbox, and on the host as the same uid, finds it)", async () => {
    // Both agents have the same uid: only the PID namespace keeps the other's processes, and so
    // their roots, out of sight. The host's PID namespace shows every process: there it finds it.
    const attack = "cat /proc/[0-9]*/root/run/secrets/*";
    if (runtime === "gvisor") {
      // gVisor's kernel refuses /proc/N/root of every process but the reader's own, same uid or
      // not: the other sandbox's agent reads its secret through /proc/self/root (the path works),
      // and in this one every other process's root is refused.
      expect(asAgentUidOnHost(["sh", "-c", `${attack} 2>/dev/null`]).stdout).not.toContain(otherSecret);
      expect(await host.sh("other", "cat /proc/self/root/run/secrets/other-key")).toBe(`${otherSecret}\n`);
      const attempt = await host.sh("esc", `${attack} 2>&1; true`);
      // Its shell lists its own root's secrets (the glob), and cat, another process, is refused them.
      expect(attempt).toMatch(/^(cat: \/proc\/\d+\/root\/run\/secrets\/[^:]+: Permission denied\n)+$/);
      expect(attempt).not.toContain(otherSecret);
      return;
    }
    expect(asAgentUidOnHost(["sh", "-c", `${attack} 2>/dev/null`]).stdout).toContain(`${otherSecret}\n`);
    expect(await host.sh("other", attack)).toMatch(new RegExp(`^(${otherSecret}\n)+$`));
    // It reads through the roots of the processes it can see: its own secret, and only that.
    expect(await host.sh("esc", attack)).toMatch(new RegExp(`^(${host.secretValue}\n)+$`));
  });

  it("cannot write the host's programs (control: the same write through a writable bind, its workspace, succeeds)", async () => {
    // The host's /usr is bound read-only by the backend, with no switch (a writable one would
    // weaken every sandbox). Root inside, whom file permissions do not stop, writes the
    // sandbox's own /etc and meets the same refusal at /usr: the refusal is the mount's.
    expect(await host.sh("esc", "touch /workspace/written && echo ok")).toBe("ok\n");
    const attack = "touch /usr/bin/forage-planted 2>&1 || echo refused";
    const refused = "touch: cannot touch '/usr/bin/forage-planted': Read-only file system\nrefused\n";
    expect(await host.rootSh("esc", `touch /etc/forage-planted && rm /etc/forage-planted && echo ok; ${attack}`)).toBe(
      `ok\n${refused}`,
    );
    // gVisor's kernel checks the file's permissions before the mount's flag.
    expect(await host.sh("esc", attack)).toBe(
      runtime === "gvisor" ? refused.replace("Read-only file system", "Permission denied") : refused,
    );
  });

  it("gains nothing from a setuid-root program (control: on the host the same uid becomes root by it)", async () => {
    // no_new_privs (nspawn's and the entry helper's, on every process inside) voids the bit and has
    // no switch: no sandbox runs without it, so the control is the host's same uid. Inside, the copy
    // is still setuid root, on a mount without nosuid: no_new_privs alone stands in the way.
    const control = join("/var/tmp", `forage-id-suid-${process.pid}`);
    for (const copy of [control, join(workspace, "id-suid")]) {
      copyFileSync("/usr/bin/id", copy);
      chmodSync(copy, 0o4755);
    }
    try {
      expect(asAgentUidOnHost([control, "-u"])).toMatchObject({ status: 0, stdout: "0\n" });
    } finally {
      rmSync(control, { force: true });
    }
    const seen =
      "stat -c '%a %U' /workspace/id-suid; awk '$5 == \"/workspace\" { print $6 }' /proc/self/mountinfo; grep NoNewPrivs /proc/self/status";
    // gVisor's /proc/self/status has no NoNewPrivs line; the bit is set there all the same (forage-enter).
    expect(await host.sh("esc", `${seen} || true`)).toMatch(
      runtime === "gvisor"
        ? /^4755 root\n(?![^\n]*nosuid)[^\n]+\n$/
        : /^4755 root\n(?![^\n]*nosuid)[^\n]+\nNoNewPrivs:\t1\n$/,
    );
    expect(await host.sh("esc", "/workspace/id-suid -u")).toBe(`${agentUid}\n`);
  });

  it("opens no raw socket (control: root inside, with CAP_NET_RAW, pings its loopback with the same program)", async () => {
    // A copy without ping's file capability: the original cannot even start with the agent's empty
    // bounding set, so only a copy reaches socket(), the attempt under test.
    expect(await host.sh("esc", "cp /usr/bin/ping /tmp/ping && echo copied")).toBe("copied\n");
    const attack = "/tmp/ping -c 1 -W 1 127.0.0.1 2>&1 || echo refused";
    if (runtime === "gvisor") {
      // gVisor offers no raw sockets at all (runsc runs without --net-raw): not even root inside
      // opens one. The capability's control is this test on the nspawn runtime. (Its netstack
      // gives everyone ICMP echo through a datagram socket, as Linux does where ping_group_range
      // allows: ping works on loopback, and what leaves is judged by the host-side table.)
      const raw = `perl -e 'use Socket; socket(my $s, PF_INET, SOCK_RAW, 1) or die "raw: $!\\n"; print "opened\\n"' 2>&1; true`;
      const refused = /^raw: (Operation not permitted|Address family not supported by protocol)\n$/;
      expect(await host.rootSh("esc", raw)).toMatch(refused);
      expect(await host.sh("esc", raw)).toMatch(refused);
      return;
    }
    expect(await host.rootSh("esc", attack)).toMatch(/^1 packets transmitted, 1 received, 0% packet loss/m);
    expect(await host.sh("esc", attack)).toMatch(/^\/tmp\/ping: socket: Operation not permitted\n[\s\S]*refused\n$/m);
  });

  it("cannot change its firewall or links (control: root inside, with CAP_NET_ADMIN, flushes and downs them, then puts them back)", async () => {
    // nft is in /usr/sbin, off the agent's PATH: called by name, it was "not found", not refused.
    // The link is read with ip: /sys inside is the host's sysfs, whose lo says nothing of the sandbox's.
    const flush = "/usr/sbin/nft flush ruleset 2>&1 || echo refused";
    const down = "ip link set lo down 2>&1 || echo refused";
    const link = "ip -o link show lo | grep -o '<[^>]*>'";
    const intact = `/usr/sbin/nft list ruleset | grep -c '^table inet forage {'; ${link}`;
    if (runtime === "gvisor") {
      // gVisor's kernel has no nftables (its netlink knows route only) and refuses link changes on
      // the host's stack it borrows, to root inside too; the capability's control is this test on
      // nspawn. The sandbox's tables are the host's, kept from outside.
      const unsupported = "mnl.c:60: Unable to initialize Netlink socket: Protocol not supported\nrefused\n";
      const denied = "RTNETLINK answers: Permission denied\nrefused\n";
      expect(await host.rootSh("esc", `${flush}\n${down}\n${link}\n`)).toBe(
        `${unsupported}${denied}<LOOPBACK,UP,LOWER_UP>\n`,
      );
      expect(await host.sh("esc", `${flush}; ${down}; ${link}`)).toBe(
        `${unsupported}${denied}<LOOPBACK,UP,LOWER_UP>\n`,
      );
      return;
    }
    const control = `/usr/sbin/nft list ruleset > /root/ruleset\n${flush}\n/usr/sbin/nft list ruleset | wc -l\n/usr/sbin/nft -f /root/ruleset\n${down}\n${link}\nip link set lo up\n${intact}\n`;
    expect(await host.rootSh("esc", control)).toBe("0\n<LOOPBACK>\n1\n<LOOPBACK,UP,LOWER_UP>\n");
    expect(await host.sh("esc", flush)).toMatch(
      /^Error: Could not process rule: Operation not permitted\n[\s\S]*refused\n$/,
    );
    expect(await host.sh("esc", down)).toBe("RTNETLINK answers: Operation not permitted\nrefused\n");
    expect(await host.rootSh("esc", intact)).toBe("1\n<LOOPBACK,UP,LOWER_UP>\n");
  });

  it("cannot reach the host's abstract unix sockets (control: the host's own process can; in the sandbox, the same name reaches the sandbox's own listener)", async () => {
    abstractServer = createServer((socket) => socket.end("host-socket\n"));
    await new Promise<void>((resolve) => abstractServer?.listen(`\0${abstractName}`, resolve));
    const probe = `const s = require("net").connect("\\0${abstractName}"); s.on("data", (d) => { process.stdout.write(d); process.exit(0); }); s.on("error", (e) => { console.log(e.code); process.exit(0); });`;
    // Asynchronously: the server answering lives in this very process.
    expect((await execa(process.execPath, ["-e", probe])).stdout).toBe("host-socket");
    expect(await host.sh("esc", `node -e '${probe}'`)).toBe("ECONNREFUSED\n");
    // Abstract names are per network namespace: inside, the same name reaches a listener there.
    const inside = `require("net").createServer((c) => c.end("sandbox-socket\\n")).listen("\\0${abstractName}", () => { ${probe} });`;
    expect(await host.sh("esc", `node -e '${inside}'`)).toBe("sandbox-socket\n");
  });

  it("cannot see the host's forage state, run or daemon socket (control: they exist on the host)", async () => {
    for (const dir of [join(host.dir, "state"), join(host.dir, "run")]) {
      expect(spawnSync("test", ["-d", dir]).status).toBe(0);
      expect(await host.sh("esc", `test -e ${dir} && echo visible || echo hidden`)).toBe("hidden\n");
    }
  });

  it("cannot plant a git hook (control: with .git/hooks unprotected by its template it can)", async () => {
    expect(await host.sh("hooks", "echo '#!/bin/sh' > /workspace/.git/hooks/pre-commit && echo written")).toBe(
      "written\n",
    );
    expect(await host.sh("esc", "(echo '#!/bin/sh' > /workspace/.git/hooks/pre-commit) 2>&1 || echo refused")).toMatch(
      /Read-only file system\nrefused\n$/,
    );
  });

  it("makes no device node that reaches a device of the host (control: root inside, with CAP_MKNOD, makes the same node)", async () => {
    if (runtime === "gvisor") {
      // Under gVisor the workspace (a gofer mount) takes no device node, from root either. In the
      // sandbox's own /tmp gVisor lets even the agent make one (it does not check CAP_MKNOD there),
      // but a node reaches only gVisor's own devices: the host's memory and disks are not among
      // them, while a node of a device gVisor has (zero) reads (the control).
      const workspaceNode = "mknod /workspace/null c 1 3 2>&1 || echo refused";
      const refusedThere = "mknod: /workspace/null: Operation not permitted\nrefused\n";
      expect(await host.rootSh("esc", `${workspaceNode}\n`)).toBe(refusedThere);
      const read = (node: string, type: string): string =>
        `mknod /tmp/${node} ${type} && head -c 16 /tmp/${node} 2>/dev/null | wc -c`;
      expect(
        await host.sh(
          "esc",
          `${workspaceNode}; ${read("zero", "c 1 5")}; ${read("mem", "c 1 1")}; ${read("disk", "b 8 0")}`,
        ),
      ).toBe(`${refusedThere}16\n0\n0\n`);
      return;
    }
    const attack = "mknod /workspace/null c 1 3 2>&1 || echo refused";
    expect(await host.rootSh("esc", `${attack}\nstat -c '%F %t:%T' /workspace/null\nrm /workspace/null`)).toBe(
      "character special file 1:3\n",
    );
    expect(await host.sh("esc", attack)).toBe("mknod: /workspace/null: Operation not permitted\nrefused\n");
  });
});
