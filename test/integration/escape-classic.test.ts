import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { agentUid, TestHost } from "./harness.js";

/*
 * The classic escapes, tried as the agent in a real host-root sandbox. Each attempt has a control:
 * the same thing done where the protection is not in the way (on the host as the same uid, as
 * root, in the sandbox's own allowed places, or with the protection lifted by the template), so
 * an attempt cannot pass only because it was broken.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "nft", "ping", "git", "tmux");

/** Runs argv on the host as the sandbox's user (uid/gid 65534, no groups): the controls' "same uid". */
function asAgentUidOnHost(argv: string[]): { status: number | null; stdout: string } {
  const result = spawnSync("setpriv", [`--reuid=${agentUid}`, `--regid=${agentUid}`, "--clear-groups", "--", ...argv], { encoding: "utf8" });
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

describe.skipIf(!tools.run || !isRoot())("classic escapes from a sandbox, each with its control", () => {
  const otherSecret = `other-secret-${process.pid}`;
  const host = new TestHost("10.248", "nobody", moreTemplates, "", { secrets: { "other-key": otherSecret } });
  const canary = join("/var/tmp", `forage-canary-${process.pid}`);
  const abstractName = `forage-escape-${process.pid}`;
  let abstractServer: Server | undefined;
  let workspace = "";

  beforeAll(async () => {
    writeFileSync(canary, "host-canary\n", { mode: 0o644 });
    workspace = host.workspace("esc");
    execFileSync("git", ["init", "-q", workspace]);
    execFileSync("chown", ["-R", `${agentUid}:${agentUid}`, workspace]);
    for (const [name, template] of [
      ["esc", "keyed"],
      ["other", "other-keyed"],
      ["hooks", "open-hooks"],
    ] as const) {
      const dir = name === "esc" ? workspace : host.workspace(name);
      if (name === "hooks") {
        execFileSync("git", ["init", "-q", dir]);
        execFileSync("chown", ["-R", `${agentUid}:${agentUid}`, dir]);
      }
      const up = await host.run(["up", name, "-t", template, "-w", dir]);
      expect(up.exitCode, up.stderr).toBe(0);
    }
  });
  afterAll(async () => {
    abstractServer?.close();
    rmSync(canary, { force: true });
    await host.cleanup();
  });

  it("cannot read a world-readable host file outside its mounts (control: the same uid on the host can)", async () => {
    expect(asAgentUidOnHost(["cat", canary])).toMatchObject({ status: 0, stdout: "host-canary\n" });
    expect(await host.sh("esc", `cat ${canary} 2>&1 || echo refused`)).toMatch(/No such file or directory\nrefused\n$/);
    // PID 1 inside is the sandbox's own init: its root is the sandbox's, and the agent may not follow it.
    expect(await host.sh("esc", `cat /proc/1/root${canary} 2>&1 || echo refused`)).toMatch(/refused\n$/);
  });

  it("cannot reach another sandbox's secret (control: that sandbox reads it)", async () => {
    expect(await host.sh("other", "cat /run/secrets/other-key")).toBe(`${otherSecret}\n`);
    expect(await host.sh("esc", "ls /run/secrets")).toBe("demo-key\n");
    expect(await host.sh("esc", `cat ${join(host.dir, "secrets", "other", "other-key")} 2>&1 || echo refused`)).toMatch(/refused\n$/);
    // Every process it can see (and so every /proc/<pid>/root) is its own: the other's are in another PID namespace.
    expect(await host.sh("esc", `cat /proc/[0-9]*/root/run/secrets/* 2>/dev/null | grep -c ${otherSecret} || true`)).toBe("0\n");
  });

  it("cannot write the host's programs (control: it writes its workspace)", async () => {
    expect(await host.sh("esc", "touch /workspace/written && echo ok")).toBe("ok\n");
    expect(await host.sh("esc", "touch /usr/bin/forage-planted 2>&1 || echo refused")).toMatch(/Read-only file system\nrefused\n$/);
  });

  it("gains nothing from a setuid-root program (control: on the host it makes the same uid root)", async () => {
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
    expect(await host.sh("esc", "/workspace/id-suid -u")).toBe(`${agentUid}\n`);
  });

  it("opens no raw socket (control: root on the host pings loopback)", async () => {
    expect(spawnSync("ping", ["-c", "1", "-W", "1", "127.0.0.1"]).status).toBe(0);
    expect(await host.sh("esc", "ping -c 1 -W 1 127.0.0.1 2>&1 || echo refused")).toMatch(/(Operation not permitted|permission denied)[\s\S]*refused\n$/i);
  });

  it("cannot change its firewall or links (control: root in a throwaway namespace can)", async () => {
    const scratch = `forage-esc-${process.pid}`;
    execFileSync("ip", ["netns", "add", scratch]);
    try {
      expect(spawnSync("ip", ["netns", "exec", scratch, "nft", "flush", "ruleset"]).status).toBe(0);
      expect(spawnSync("ip", ["netns", "exec", scratch, "ip", "link", "set", "lo", "up"]).status).toBe(0);
    } finally {
      execFileSync("ip", ["netns", "delete", scratch]);
    }
    expect(await host.sh("esc", "nft flush ruleset 2>&1 || echo refused")).toMatch(/refused\n$/);
    expect(await host.sh("esc", "ip link set lo down 2>&1 || echo refused")).toMatch(/Operation not permitted\nrefused\n$/);
    expect(await host.sh("esc", "cat /sys/class/net/lo/operstate")).toMatch(/^(unknown|up)\n$/);
  });

  it("cannot reach the host's abstract unix sockets (control: the host's own process can)", async () => {
    abstractServer = createServer((socket) => socket.end("host-socket\n"));
    await new Promise<void>((resolve) => abstractServer?.listen(`\0${abstractName}`, resolve));
    const probe = `const s = require("net").connect("\\0${abstractName}"); s.on("data", (d) => { process.stdout.write(d); process.exit(0); }); s.on("error", (e) => { console.log(e.code); process.exit(0); });`;
    // Asynchronously: the server answering lives in this very process.
    expect((await execa(process.execPath, ["-e", probe])).stdout).toBe("host-socket");
    expect(await host.sh("esc", `node -e '${probe}'`)).toBe("ECONNREFUSED\n");
  });

  it("cannot see the host's forage state, run or daemon socket (control: they exist on the host)", async () => {
    for (const dir of [join(host.dir, "state"), join(host.dir, "run")]) {
      expect(spawnSync("test", ["-d", dir]).status).toBe(0);
      expect(await host.sh("esc", `test -e ${dir} && echo visible || echo hidden`)).toBe("hidden\n");
    }
  });

  it("cannot plant a git hook (control: with .git/hooks unprotected by its template it can)", async () => {
    expect(await host.sh("hooks", "echo '#!/bin/sh' > /workspace/.git/hooks/pre-commit && echo written")).toBe("written\n");
    expect(await host.sh("esc", "(echo '#!/bin/sh' > /workspace/.git/hooks/pre-commit) 2>&1 || echo refused")).toMatch(/Read-only file system\nrefused\n$/);
  });

  it("makes no device nodes (control: root on the host can)", async () => {
    const scratch = join(host.dir, "dev-control");
    mkdirSync(scratch);
    execFileSync("mknod", [join(scratch, "null"), "c", "1", "3"]);
    expect(await host.sh("esc", "mknod /workspace/null c 1 3 2>&1 || echo refused")).toMatch(/Operation not permitted\nrefused\n$/);
  });
});
