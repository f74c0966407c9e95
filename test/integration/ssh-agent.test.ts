import { execFileSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SshSignSubject } from "../../runtime/gates/approvals/approval.js";
import { readKeyFile } from "../../runtime/gates/ssh-agent/key-file.js";
import { SshAgentServer, type SignRecord } from "../../runtime/gates/ssh-agent/ssh-agent-server.js";
import type { AgentKey } from "../../runtime/gates/ssh-agent/ssh-key.js";
import { upstreamKeys } from "../../runtime/gates/ssh-agent/upstream-agent.js";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { TestApprovalQueue } from "../support/test-approval-queue.js";
import { startTestSshd, type TestSshd } from "../support/test-sshd.js";
import { TestHosts } from "../support/test-hosts.js";

/*
 * The sandbox's SSH agent against the real OpenSSH: keys made by ssh-keygen, logins by ssh to an
 * sshd this test runs on a test host in a network namespace it makes (as root, ForceCommand echo),
 * ssh-add as the client that tries
 * to change the agent, and a real ssh-agent of another user for the relay. Every signature is
 * answered by the test's own approvals queue after it has looked at the ask.
 */
const tools = toolsAvailable("ssh", "sshd", "ssh-keygen", "ssh-add", "ssh-agent", "setpriv", "ip", "openssl");
const nobody = 65534;
const hosts = new TestHosts("fth253", "10.199.253", "fd99:1253");
const [sshHost] = hosts.v4 as [string];

describe.skipIf(!tools.run || !isRoot())("the sandbox's SSH agent with real ssh, sshd and ssh-agent", () => {
  const dir = mkdtempSync("/tmp/forage-ssh-agent-");
  const keysDir = join(dir, "keys");
  const pubsDir = join(dir, "pubs");
  let sshd: TestSshd | undefined;
  const fingerprints: Record<string, string> = {};
  let hostKeyFingerprint = "";

  /** An agent on its own socket with `keys`, asking `queue`; what it recorded, in order. */
  async function startAgent(name: string, keys: AgentKey[], confirm: boolean, queue: TestApprovalQueue) {
    const records: SignRecord[] = [];
    const socket = join(dir, `${name}.sock`);
    const server = new SshAgentServer({ sandbox: name, keys, confirm, ask: queue.ask, record: (r) => records.push(r) });
    await server.listen(socket, 0);
    return { socket, records, server };
  }

  /** ssh to the test's sshd with one key, through the agent at `socket` only. */
  const login = (socket: string, key: string) =>
    execa(
      "ssh",
      [
        "-F",
        "/dev/null",
        "-o",
        `IdentityAgent=${socket}`,
        "-o",
        `IdentityFile=${join(pubsDir, `${key}.pub`)}`,
        "-o",
        "IdentitiesOnly=yes",
        "-o",
        "BatchMode=yes",
        "-o",
        `UserKnownHostsFile=${sshd?.knownHosts}`,
        "-o",
        "StrictHostKeyChecking=yes",
        `root@${sshHost}`,
      ],
      { reject: false, stdin: "ignore", timeout: 30_000 },
    );

  beforeAll(async () => {
    chmodSync(dir, 0o755);
    mkdirSync(keysDir);
    mkdirSync(pubsDir);
    for (const [name, type] of [
      ["ed", "ed25519"],
      ["rsa", "rsa"],
      ["ec", "ecdsa"],
      ["other", "ed25519"],
    ]) {
      execFileSync("ssh-keygen", [
        "-q",
        "-t",
        type ?? "",
        "-N",
        "",
        "-C",
        `${name}@test`,
        "-f",
        join(keysDir, name ?? ""),
      ]);
      // Only the public half where ssh looks: it must sign through the agent.
      copyFileSync(join(keysDir, `${name}.pub`), join(pubsDir, `${name}.pub`));
      fingerprints[name ?? ""] =
        execFileSync("ssh-keygen", ["-l", "-E", "sha256", "-f", join(keysDir, `${name}.pub`)], {
          encoding: "utf8",
        }).split(" ")[1] ?? "";
    }
    await hosts.start({});
    sshd = await startTestSshd(
      dir,
      ["ed", "rsa", "ec", "other"].map((k) => readFileSync(join(keysDir, `${k}.pub`), "utf8")).join(""),
      { namespace: hosts.namespace, address: sshHost },
    );
    hostKeyFingerprint = sshd.hostKeyFingerprint;
  });

  afterAll(async () => {
    await sshd?.stop();
    hosts.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const fileKeys = (...names: string[]) => Promise.all(names.map((name) => readKeyFile(join(keysDir, name), 0)));

  it("reads ssh-keygen's Ed25519, RSA and ECDSA keys with the fingerprints ssh-keygen shows", async () => {
    const keys = await fileKeys("ed", "rsa", "ec");
    expect(keys.map((k) => [k.fingerprint, k.comment])).toEqual([
      [fingerprints.ed, "ed@test"],
      [fingerprints.rsa, "rsa@test"],
      [fingerprints.ec, "ec@test"],
    ]);
  });

  it("logs in once the human approves the signature, having been shown the key, its comment and the login", async () => {
    const queue = new TestApprovalQueue();
    const agent = await startAgent("approve", await fileKeys("ed"), true, queue);
    const ssh = login(agent.socket, "ed");
    const pending = await queue.next();
    expect(pending.ask).toMatchObject({
      sandbox: "approve",
      kind: "ssh-sign",
      subject: { fingerprint: fingerprints.ed, comment: "ed@test" },
    });
    // OpenSSH's host-bound login names the server's host key: the signature is good for that server only.
    expect((pending.ask.subject as SshSignSubject).destination).toEqual({
      kind: "ssh-login",
      user: "root",
      hostKey: hostKeyFingerprint,
    });
    pending.answer({ decision: "once" });
    const result = await ssh;
    expect([result.exitCode, result.stdout]).toEqual([0, "logged-in"]);
    expect(agent.records).toEqual([
      expect.objectContaining({ fingerprint: fingerprints.ed, signed: true, reason: "once" }),
    ]);
    await agent.server.close();
  });

  it("signs with an RSA key as rsa-sha2-256/512 (ssh asks with the flags) and with ECDSA", async () => {
    const queue = new TestApprovalQueue();
    const agent = await startAgent("rsa", await fileKeys("rsa", "ec"), true, queue);
    for (const key of ["rsa", "ec"]) {
      const ssh = login(agent.socket, key);
      const pending = await queue.next();
      expect(pending.ask.subject).toMatchObject({ fingerprint: fingerprints[key] });
      pending.answer({ decision: "once" });
      expect((await ssh).stdout).toBe("logged-in");
    }
    await agent.server.close();
  });

  it("fails the login when the human denies the signature, or nobody answers in time", async () => {
    const queue = new TestApprovalQueue();
    const agent = await startAgent("deny", await fileKeys("ed"), true, queue);
    for (const decision of ["deny", "expired"] as const) {
      const ssh = login(agent.socket, "ed");
      (await queue.next()).answer({ decision });
      const result = await ssh;
      expect(result.exitCode).toBe(255);
      expect(result.stderr).toMatch(/Permission denied \(publickey\)/);
    }
    expect(agent.records.map((r) => [r.signed, r.reason])).toEqual([
      [false, "deny"],
      [false, "expired"],
    ]);
    await agent.server.close();
  });

  it("signs again without asking while an approval `for` a while runs, and asks again after it", async () => {
    const queue = new TestApprovalQueue();
    let now = 1_000_000;
    const records: SignRecord[] = [];
    const socket = join(dir, "for.sock");
    const server = new SshAgentServer({
      sandbox: "for",
      keys: await fileKeys("ed"),
      confirm: true,
      ask: queue.ask,
      record: (r) => records.push(r),
      now: () => now,
    });
    await server.listen(socket, 0);
    const first = login(socket, "ed");
    (await queue.next()).answer({ decision: "for", untilMs: now + 10 * 60_000 });
    expect((await first).stdout).toBe("logged-in");
    expect((await login(socket, "ed")).stdout).toBe("logged-in");
    expect(queue.asks).toHaveLength(1);
    now += 10 * 60_000 + 1;
    const third = login(socket, "ed");
    (await queue.next()).answer({ decision: "deny" });
    expect((await third).exitCode).toBe(255);
    expect(records.map((r) => r.reason)).toEqual(["for", "approved-earlier", "deny"]);
    await server.close();
  });

  it("lets an approval `for` a while cover the key's signatures for the destination the human saw, and asks for any other", async () => {
    const queue = new TestApprovalQueue();
    const agent = await startAgent("for-where", await fileKeys("ed"), true, queue);
    const first = login(agent.socket, "ed");
    const asked = await queue.next();
    expect(asked.ask.subject).toMatchObject({
      destination: { kind: "ssh-login", user: "root", hostKey: hostKeyFingerprint },
    });
    asked.answer({ decision: "for", untilMs: Date.now() + 10 * 60_000 });
    expect((await first).stdout).toBe("logged-in");
    expect((await login(agent.socket, "ed")).stdout).toBe("logged-in");
    // The same key asked to sign a file (an SSHSIG in namespace "file"): not what was approved.
    const message = join(dir, "message.txt");
    writeFileSync(message, "a file the sandbox wants signed\n");
    const sign = execa("ssh-keygen", ["-Y", "sign", "-U", "-f", join(pubsDir, "ed.pub"), "-n", "file", message], {
      env: { SSH_AUTH_SOCK: agent.socket },
      reject: false,
      stdin: "ignore",
    });
    const again = await queue.next();
    expect(again.ask.subject).toMatchObject({
      fingerprint: fingerprints.ed,
      destination: { kind: "sshsig", namespace: "file" },
    });
    again.answer({ decision: "deny" });
    expect((await sign).exitCode).not.toBe(0);
    expect(agent.records.map((r) => r.reason)).toEqual(["for", "approved-earlier", "deny"]);
    await agent.server.close();
  });

  it("signs without asking and records it when confirm is off", async () => {
    const queue = new TestApprovalQueue();
    const agent = await startAgent("noconfirm", await fileKeys("ed"), false, queue);
    expect((await login(agent.socket, "ed")).stdout).toBe("logged-in");
    expect(queue.asks).toEqual([]);
    expect(agent.records).toEqual([
      expect.objectContaining({
        fingerprint: fingerprints.ed,
        signed: true,
        reason: "confirm-off",
        destination: expect.objectContaining({ kind: "ssh-login", user: "root" }),
      }),
    ]);
    await agent.server.close();
  });

  it("lists only its configured keys, and refuses a key it does not hold without asking", async () => {
    const queue = new TestApprovalQueue();
    const agent = await startAgent("list", await fileKeys("ed", "rsa"), true, queue);
    const listed = await execa("ssh-add", ["-l"], { env: { SSH_AUTH_SOCK: agent.socket }, reject: false });
    expect(listed.stdout.split("\n").map((line) => line.split(" ")[1])).toEqual([fingerprints.ed, fingerprints.rsa]);
    const other = await login(agent.socket, "other");
    expect(other.exitCode).toBe(255);
    expect(queue.asks).toEqual([]);
    await agent.server.close();
  });

  it("refuses ssh-add adding, removing and deleting all keys, and locking", async () => {
    const queue = new TestApprovalQueue();
    const agent = await startAgent("refuse", await fileKeys("ed"), true, queue);
    const env = { SSH_AUTH_SOCK: agent.socket };
    const add = await execa("ssh-add", [join(keysDir, "other")], { env, reject: false });
    expect([add.exitCode, add.stderr]).toEqual([1, expect.stringMatching(/Could not add identity/)]);
    const removeAll = await execa("ssh-add", ["-D"], { env, reject: false });
    expect([removeAll.exitCode, removeAll.stderr]).toEqual([
      1,
      expect.stringMatching(/Failed to remove all identities/),
    ]);
    const remove = await execa("ssh-add", ["-d", join(pubsDir, "ed.pub")], { env, reject: false });
    expect(remove.exitCode).toBe(1);
    const lock = await execa("ssh-add", ["-x"], { env, input: "pw\npw\n", reject: false });
    expect(lock.exitCode).not.toBe(0);
    expect((await execa("ssh-add", ["-l"], { env })).stdout.split("\n")).toHaveLength(1);
    await agent.server.close();
  });

  it("listens on a socket only its owner (and root) can connect to", async () => {
    const queue = new TestApprovalQueue();
    const server = new SshAgentServer({
      sandbox: "mode",
      keys: [],
      confirm: true,
      ask: queue.ask,
      record: () => undefined,
    });
    const socket = join(dir, "mode.sock");
    await server.listen(socket, nobody);
    const info = lstatSync(socket);
    expect([info.isSocket(), info.uid, info.mode & 0o777]).toEqual([true, nobody, 0o600]);
    await server.close();
  });

  it("relays to the user's own ssh-agent as the user, listing and signing only the keys named by fingerprint", async () => {
    const userDir = join(dir, "user");
    mkdirSync(userDir, { mode: 0o700 });
    chownSync(userDir, nobody, nobody);
    for (const key of ["ed", "other"]) {
      copyFileSync(join(keysDir, key), join(userDir, key));
      chownSync(join(userDir, key), nobody, nobody);
      chmodSync(join(userDir, key), 0o600);
    }
    const upstream = join(userDir, "agent.sock");
    const asNobody = ["--reuid", String(nobody), "--regid", String(nobody), "--clear-groups", "--"];
    const userAgent = execa("setpriv", [...asNobody, "ssh-agent", "-D", "-a", upstream], { reject: false });
    try {
      for (let i = 0; i < 100 && !existsSocket(upstream); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      await execa("setpriv", [...asNobody, "ssh-add", join(userDir, "ed"), join(userDir, "other")], {
        env: { SSH_AUTH_SOCK: upstream },
      });
      const keys = await upstreamKeys({ socket: upstream, uid: nobody, gid: nobody }, [fingerprints.ed ?? ""]);
      expect(keys.map((k) => k.fingerprint)).toEqual([fingerprints.ed]);
      const queue = new TestApprovalQueue();
      const agent = await startAgent("relay", keys, true, queue);
      const ssh = login(agent.socket, "ed");
      (await queue.next()).answer({ decision: "once" });
      expect((await ssh).stdout).toBe("logged-in");
      await expect(upstreamKeys({ socket: upstream, uid: nobody, gid: nobody }, ["SHA256:nothere"])).rejects.toThrow(
        /holds no key SHA256:nothere/,
      );
      await agent.server.close();
    } finally {
      userAgent.kill("SIGTERM");
      await userAgent;
    }
  });

  it("reads a key file only when it is the user's own regular file, never through a link", async () => {
    await expect(readKeyFile(join(keysDir, "ed"), nobody)).rejects.toThrow(
      /is not owned by the sandbox's user \(uid 65534\)/,
    );
    symlinkSync(join(keysDir, "ed"), join(dir, "link"));
    await expect(readKeyFile(join(dir, "link"), 0)).rejects.toThrow(/is a symbolic link/);
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "secret", "-f", join(dir, "locked")]);
    await expect(readKeyFile(join(dir, "locked"), 0)).rejects.toThrow(/protected by a passphrase/);
  });
});

function existsSocket(path: string): boolean {
  try {
    return lstatSync(path).isSocket();
  } catch {
    return false;
  }
}
