import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { agentUid, TestHost } from "./harness.js";

/*
 * Real sshd in a real sandbox, real ssh client on the host: keys only, the agent user only, and a
 * host key generated at up and pinned, so a changed key is refused (the reference skipped the check).
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "ssh", "ssh-keygen", "sshd");

describe.skipIf(!tools.run || !isRoot())("SSH into a sandbox", () => {
  const host = new TestHost("10.229");
  const ssh = (...args: string[]) => host.run(["ssh", "box", "-i", host.sshKey, ...args]);
  beforeAll(async () => {
    const up = await host.run(["up", "box", "-t", "sshable", "-w", host.workspace("box")]);
    expect(up.stderr).toBe("");
    expect(up.exitCode).toBe(0);
  });
  afterAll(() => host.cleanup());

  it("logs in as the agent with a configured key and runs a command, exit status kept", async () => {
    expect(await ssh("--", "id", "-u")).toMatchObject({ exitCode: 0, stdout: `${agentUid}\n` });
    expect((await ssh("--", "sh", "-c", "'exit 9'")).exitCode).toBe(9);
  });

  it("gives SSH sessions no capabilities and no_new_privs", async () => {
    const status = (await ssh("--", "grep", "-E", "'^(CapEff|NoNewPrivs)'", "/proc/self/status")).stdout;
    expect(status).toMatch(/CapEff:\s+0000000000000000/);
    expect(status).toMatch(/NoNewPrivs:\s+1/);
  });

  it("refuses a key that is not authorized", async () => {
    const stranger = join(host.dir, "stranger");
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", stranger]);
    const refused = await host.run(["ssh", "box", "-i", stranger, "--", "true"]);
    expect(refused.exitCode).toBe(8);
    expect(refused.stderr).toContain("Permission denied");
  });

  it("keeps the same pinned host key across reset, and still logs in", async () => {
    const before = JSON.parse((await host.run(["status", "box", "--json"])).stdout) as { sshHostKey: string };
    expect(before.sshHostKey).toMatch(/^ssh-ed25519 /);
    expect((await host.run(["reset", "box"])).exitCode).toBe(0);
    const after = JSON.parse((await host.run(["status", "box", "--json"])).stdout) as { sshHostKey: string };
    expect(after.sshHostKey).toBe(before.sshHostKey);
    expect((await ssh("--", "true")).exitCode).toBe(0);
  });

  it("refuses to connect when the sandbox presents a different host key", async () => {
    // Replace the key sshd serves (as root inside) and restart sshd: the pin must catch it.
    const swap =
      "ssh-keygen -q -t ed25519 -N '' -f /tmp/other <<<y >/dev/null; cp /tmp/other /etc/ssh/ssh_host_ed25519_key; kill $(cat /run/sshd.pid); sleep 0.2; /usr/sbin/sshd -f /etc/ssh/sshd_config";
    expect((await host.run(["shell", "box"], `${swap}\n`)).exitCode).toBe(0);
    const refused = await ssh("--", "true");
    expect(refused.exitCode).toBe(8);
    expect(refused.stderr).toMatch(/host key|HOST IDENTIFICATION/i);
  });

  it("forgets the host key on down", async () => {
    expect((await host.run(["down", "box", "-t", "1"])).exitCode).toBe(0);
    const sandboxes = join(host.env.FORAGE_STATE_DIR ?? "", "sandboxes");
    expect(existsSync(sandboxes) ? readdirSync(sandboxes).filter((f) => f.startsWith("box.ssh")) : []).toEqual([]);
  });

  it("tells the user to attach when the template has no SSH", async () => {
    expect((await host.run(["up", "plain", "-t", "basic", "-w", host.workspace("plain")])).exitCode).toBe(0);
    const refused = await host.run(["ssh", "plain", "--", "true"]);
    expect(refused.exitCode).toBe(8);
    expect(refused.stderr).toContain("use forage-ctl attach plain");
  });
});
