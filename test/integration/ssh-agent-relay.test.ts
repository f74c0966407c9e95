import { execFileSync } from "node:child_process";
import { appendFileSync, chmodSync, chownSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SshSignSubject } from "../../runtime/gates/approvals/approval.js";
import { TestHosts } from "../support/test-hosts.js";
import { startTestSshd, type TestSshd } from "../support/test-sshd.js";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { agentUid, TestHost } from "./harness.js";

/*
 * A template's SSH agent naming a key by fingerprint relays to the user's own agent
 * (runtime/gates/ssh-agent/upstream-socket.ts): GIVEN the user's real ssh-agent holding the key and a
 * real sshd on a test host in a network namespace made here, WHEN `up`, `stop` and `start` run
 * through the real CLI and daemon with and without SSH_AUTH_SOCK, THEN up refuses before anything
 * is made when the socket is missing or the agent lacks the key; with it, ssh in the sandbox logs
 * in to the test host once the signature is approved with forage-ctl approve (shown the key and
 * the server's host key; relayed to the user's agent as the user; in the audit log); a start
 * after the agent moved takes the new SSH_AUTH_SOCK.
 */
const tools = toolsAvailable(
  "systemd-nspawn",
  "nsenter",
  "setpriv",
  "ip",
  "flock",
  "tmux",
  "nft",
  "openssl",
  "ssh",
  "sshd",
  "ssh-keygen",
  "ssh-add",
  "ssh-agent",
);
const hosts = new TestHosts("fth254", "10.199.254", "fd99:1254");
const [sshHost] = hosts.v4 as [string];

describe.skipIf(!tools.run || !isRoot())("an SSH agent whose key is the user's own agent's", () => {
  const host = new TestHost(
    "10.254",
    "nobody",
    "",
    `upstreamResolver: "${hosts.dns}", admitPrivate: ["10.199.254.0/24", "fd99:1254::/32"]`,
  );
  const sshdDir = join(host.dir, "sshd");
  let sshd: TestSshd | undefined;
  const userDir = join(host.dir, "user");
  const asUser = ["--reuid", String(agentUid), "--regid", String(agentUid), "--clear-groups", "--"];
  /** A real ssh-agent of the user's on `socket` (in the foreground, until the test kills it). */
  const runUserAgent = (socket: string) =>
    execa("setpriv", [...asUser, "ssh-agent", "-D", "-a", socket], { reject: false });
  const agents: ReturnType<typeof runUserAgent>[] = [];
  let fingerprint = "";

  /** The user's agent on `socket`, holding the key once ssh-add has added it. */
  const startUserAgent = async (socket: string): Promise<void> => {
    agents.push(runUserAgent(socket));
    const env = { SSH_AUTH_SOCK: socket };
    for (
      let i = 0;
      i < 100 && (await execa("setpriv", [...asUser, "ssh-add", "-l"], { env, reject: false })).exitCode !== 1;
      i++
    )
      await new Promise((resolve) => setTimeout(resolve, 50));
    await execa("setpriv", [...asUser, "ssh-add", join(userDir, "relayed")], { env });
  };

  /** forage-ctl with this SSH_AUTH_SOCK (none: unset). */
  const withAgent = async (socket: string | undefined, args: string[]) => {
    if (socket === undefined) delete host.extraEnv.SSH_AUTH_SOCK;
    else host.extraEnv.SSH_AUTH_SOCK = socket;
    try {
      return await host.run(args);
    } finally {
      delete host.extraEnv.SSH_AUTH_SOCK;
    }
  };

  /** Polls `script` in the sandbox until it succeeds (the daemon starts the agent after start). */
  const eventually = async (script: string): Promise<{ exitCode: number; output: string }> => {
    let last = { exitCode: -1, output: "" };
    for (let i = 0; i < 40 && last.exitCode !== 0; i++) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, 250));
      const result = await host.run(["exec", "relay", "--", "sh", "-c", `${script} 2>&1`]);
      last = { exitCode: result.exitCode, output: result.stdout + result.stderr };
    }
    return last;
  };

  beforeAll(async () => {
    chmodSync(host.dir, 0o755);
    mkdirSync(userDir, { mode: 0o700 });
    chownSync(userDir, agentUid, agentUid);
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "relayed@test", "-f", join(userDir, "relayed")]);
    for (const file of ["relayed", "relayed.pub"]) chownSync(join(userDir, file), agentUid, agentUid);
    fingerprint =
      execFileSync("ssh-keygen", ["-l", "-E", "sha256", "-f", join(userDir, "relayed.pub")], {
        encoding: "utf8",
      }).split(" ")[1] ?? "";
    const network = '{ mode: restricted, allow: ["ssh.test.example:22"] }';
    appendFileSync(
      host.config,
      `  relayed:\n    extends: basic\n    network: ${network}\n    sshAgent: { keys: ["${fingerprint}"] }\n`,
    );
    await startUserAgent(join(userDir, "first.sock"));
    await hosts.start({ "ssh.test.example": { A: [sshHost] } });
    mkdirSync(sshdDir);
    sshd = await startTestSshd(sshdDir, readFileSync(join(userDir, "relayed.pub"), "utf8"), {
      namespace: hosts.namespace,
      address: sshHost,
    });
  });

  afterAll(async () => {
    await host.cleanup();
    await sshd?.stop();
    hosts.stop();
    for (const agent of agents) agent.kill("SIGTERM");
    await Promise.all(agents);
  });

  /** The sandbox's signature request, once the daemon's queue holds it. */
  const pendingSignature = async (): Promise<{ id: string; subject: SshSignSubject }> => {
    for (let i = 0; i < 200; i++) {
      const listed = JSON.parse((await host.run(["approvals", "--json"])).stdout) as {
        id: string;
        kind: string;
        subject: SshSignSubject;
      }[];
      const found = listed.find((each) => each.kind === "ssh-sign");
      if (found !== undefined) return found;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error("no signature request came");
  };

  const listed = async (): Promise<string[]> =>
    (JSON.parse((await host.run(["ps", "--json"])).stdout) as { name: string }[]).map((sandbox) => sandbox.name);

  it("refuses up before anything is made without SSH_AUTH_SOCK, or when the agent there lacks the key", async () => {
    const unset = await withAgent(undefined, ["up", "relay", "-t", "relayed", "-w", host.workspace("relay")]);
    expect(unset.exitCode).not.toBe(0);
    expect(unset.stderr).toContain(
      `sshAgent names keys by fingerprint (${fingerprint}), which are relayed to your own SSH agent, and SSH_AUTH_SOCK is not set here`,
    );
    const empty = join(userDir, "empty.sock");
    agents.push(runUserAgent(empty));
    let lacking = await withAgent(empty, ["up", "relay", "-t", "relayed", "-w", host.workspace("relay")]);
    // The empty agent may still be starting: then it is "closed without an answer"; wait for its word.
    for (let i = 0; i < 20 && !lacking.stderr.includes("holds no key"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      lacking = await withAgent(empty, ["up", "relay", "-t", "relayed", "-w", host.workspace("relay")]);
    }
    expect(lacking.exitCode).not.toBe(0);
    expect(lacking.stderr).toContain(
      `your SSH agent at ${empty} (SSH_AUTH_SOCK): the user's agent holds no key ${fingerprint}`,
    );
    expect(await listed()).not.toContain("relay");
  }, 120_000);

  it("logs in from the sandbox to the test host once the signature is approved, relayed to the user's agent", async () => {
    const up = await withAgent(join(userDir, "first.sock"), [
      "up",
      "relay",
      "-t",
      "relayed",
      "-w",
      host.workspace("relay"),
    ]);
    expect(up.exitCode, up.stderr).toBe(0);
    const keys = await eventually("ssh-add -l");
    expect(keys.output).toContain(fingerprint);
    expect(keys.output).toContain("relayed@test");
    // Only the public halves go in: the client's, to name the key, and the server's, to trust it.
    writeFileSync(join(host.workspace("relay"), "known_hosts"), `ssh.test.example ${sshd?.hostKey ?? ""}\n`);
    copyFileSync(join(userDir, "relayed.pub"), join(host.workspace("relay"), "relayed.pub"));
    const options =
      "-T -F /dev/null -o BatchMode=yes -o UserKnownHostsFile=/workspace/known_hosts -o IdentitiesOnly=yes -i /workspace/relayed.pub";
    const login = host.run(["exec", "relay", "--", "sh", "-c", `ssh ${options} root@ssh.test.example 2>&1`]);
    const request = await pendingSignature();
    expect(request.subject).toMatchObject({ fingerprint, comment: "relayed@test" });
    expect(request.subject.destination).toEqual({
      kind: "ssh-login",
      user: "root",
      hostKey: sshd?.hostKeyFingerprint ?? "none",
    });
    expect((await host.run(["approve", request.id])).exitCode).toBe(0);
    const result = await login;
    expect([result.exitCode, result.stdout.trim()]).toEqual([0, "logged-in"]);
    const audit = (await host.run(["audit-log", "relay", "--json"])).stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { event: string; detail?: string });
    expect(audit.filter((event) => event.event === "ssh-sign").map((event) => event.detail)).toContainEqual(
      expect.stringContaining(`signed with ${fingerprint} (relayed@test)`),
    );
  }, 120_000);

  it("starts again with the SSH_AUTH_SOCK of the start, and refuses when the recorded agent is gone and none is given", async () => {
    expect((await host.run(["stop", "relay"])).exitCode).toBe(0);
    const first = agents.shift();
    first?.kill("SIGTERM");
    await first;
    const stale = await withAgent(undefined, ["start", "relay"]);
    expect(stale.exitCode).not.toBe(0);
    expect(stale.stderr).toContain(`your SSH agent at ${join(userDir, "first.sock")} (SSH_AUTH_SOCK)`);
    await startUserAgent(join(userDir, "second.sock"));
    const started = await withAgent(join(userDir, "second.sock"), ["start", "relay"]);
    expect(started.exitCode, started.stderr).toBe(0);
    expect((await eventually("ssh-add -l")).output).toContain(fingerprint);
  }, 120_000);
});
