import { execFileSync } from "node:child_process";
import { chownSync, existsSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { agentUid, TestHost } from "./harness.js";

const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "tmux");

describe.skipIf(!tools.run || !isRoot())("secrets in a real sandbox", () => {
  const host = new TestHost("10.233");
  afterAll(() => host.cleanup());

  it("copies the template's secrets 0400 for the agent's uid in a 0700 directory, read-only at /run/secrets", async () => {
    expect((await host.run(["up", "sec", "-t", "keyed", "-w", host.workspace("sec")])).exitCode).toBe(0);
    const dir = join(host.env.FORAGE_SECRETS_DIR ?? "", "sec");
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "demo-key"))).toMatchObject({ uid: agentUid, gid: agentUid });
    expect(statSync(join(dir, "demo-key")).mode & 0o777).toBe(0o400);
    expect(await host.sh("sec", "stat -c '%a %u' /run/secrets/demo-key")).toBe(`400 ${agentUid}\n`);
    expect(await host.sh("sec", "touch /run/secrets/x 2>&1 || true")).toContain("Read-only file system");
  });

  it("exports the key for the agent process only: the agent sees it, a shell in the same sandbox does not", async () => {
    expect(await host.sh("sec", "keyed | grep '^DEMO_API_KEY='")).toBe(`DEMO_API_KEY=${host.secretValue}\n`);
    expect(await host.sh("sec", "env")).not.toContain(host.secretValue);
    expect(await host.sh("sec", "bash -lc env")).not.toContain(host.secretValue);
  });

  it("keeps the key out of the agent's command line and the sandbox's metadata", async () => {
    expect(await host.sh("sec", 'keyed sh -c \'cat /proc/$$/cmdline | tr "\\0" " "\'')).not.toContain(host.secretValue);
    expect((await host.run(["status", "sec", "--json"])).stdout).not.toContain(host.secretValue);
    expect((await host.run(["audit-log", "sec", "--json"])).stdout).not.toContain(host.secretValue);
  });

  it("does not show one sandbox's secrets to another", async () => {
    expect((await host.run(["up", "nosec", "-t", "basic", "-w", host.workspace("nosec")])).exitCode).toBe(0);
    expect(await host.sh("nosec", "ls /run/secrets 2>&1; grep -rs demo /run 2>/dev/null | wc -l")).toContain("No such file");
    expect((await host.run(["down", "nosec"])).exitCode).toBe(0);
  });

  it("gives the agent its SSH identity key (--ssh-key-path) read-only, used by ssh and git, and again after reset", async () => {
    const key = join(host.dir, "identity_ed25519");
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "agent-identity", "-f", key]);
    chownSync(key, agentUid, agentUid);
    expect((await host.run(["up", "idk", "-t", "basic", "-w", host.workspace("idk"), "--ssh-key-path", key])).exitCode).toBe(0);
    const publicKey = readFileSync(`${key}.pub`, "utf8").trim();
    const check = "stat -c '%a %u' /run/secrets/.ssh-identity; ssh -G example.invalid | grep -E '^(identityfile|identitiesonly) '; ssh-keygen -y -f /run/secrets/.ssh-identity";
    const expected = `400 ${agentUid}\nidentitiesonly yes\nidentityfile /run/secrets/.ssh-identity\n${publicKey}\n`;
    expect(await host.sh("idk", check)).toBe(expected);
    expect((await host.run(["reset", "idk"])).exitCode).toBe(0);
    expect(await host.sh("idk", check)).toBe(expected);
    expect((await host.run(["status", "idk", "--json"])).stdout).not.toContain(readFileSync(key, "utf8").split("\n")[1]);
    expect((await host.run(["down", "idk"])).exitCode).toBe(0);
  });

  it("refuses an identity key that is not the user's own file: root's, or a symbolic link", async () => {
    const rootsKey = join(host.dir, "root_ed25519");
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", rootsKey]);
    const refused = await host.run(["up", "idk2", "-t", "basic", "-w", host.workspace("idk2"), "--ssh-key-path", rootsKey]);
    expect(refused).toMatchObject({ exitCode: 64, stderr: expect.stringContaining("is not owned by the sandbox's user") as unknown });
    const link = join(host.dir, "link_ed25519");
    symlinkSync(rootsKey, link);
    const linked = await host.run(["up", "idk2", "-t", "basic", "-w", host.workspace("idk2"), "--ssh-key-path", link]);
    expect(linked).toMatchObject({ exitCode: 64, stderr: expect.stringContaining("is a symbolic link") as unknown });
    expect((await host.run(["status", "idk2"])).exitCode).toBe(2);
  });

  it("removes the secret copies on down", async () => {
    expect((await host.run(["down", "sec"])).exitCode).toBe(0);
    expect(existsSync(join(host.env.FORAGE_SECRETS_DIR ?? "", "sec"))).toBe(false);
  });
});

describe.skipIf(!tools.run || !isRoot())("concurrent creation", () => {
  const host = new TestHost("10.234");
  afterAll(() => host.cleanup());

  it("gives 10 concurrent ups 10 different slots and consistent state", async () => {
    const names = Array.from({ length: 10 }, (_, i) => `c${i}`);
    const results = await Promise.all(names.map((name) => host.run(["up", name, "-t", "basic", "-w", host.workspace(name)])));
    expect(results.map((r) => r.exitCode)).toEqual(names.map(() => 0));
    const list = JSON.parse((await host.run(["ps", "--json"])).stdout) as { name: string; slot: number; status: string }[];
    expect(list.map((s) => s.name).sort()).toEqual(names);
    expect(new Set(list.map((s) => s.slot)).size).toBe(10);
    expect(list.every((s) => s.status === "running")).toBe(true);
    const down = await host.run(["down", "--all", "-t", "1"]);
    expect(down.exitCode).toBe(0);
    expect(JSON.parse((await host.run(["ps", "--json"])).stdout)).toEqual([]);
  }, 180_000);
});
