import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliPath } from "../cli/run-cli.js";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { TestHost } from "./harness.js";
import { TmuxTerminal } from "./tmux-terminal.js";
import { freePort } from "../support/free-port.js";

/*
 * forage-ctl gateway behind a real sshd on 127.0.0.1: a dedicated gateway account (made for the
 * test, removed after), the daemon serving it on its own socket, and the same Match block the
 * NixOS module writes, with ForceCommand pointing at the built CLI. The client is the real ssh,
 * on a real terminal (tmux) where a person would type.
 */
const tools = toolsAvailable(
  "systemd-nspawn",
  "nsenter",
  "setpriv",
  "ip",
  "flock",
  "tmux",
  "sshd",
  "ssh",
  "ssh-keygen",
  "scp",
  "sftp",
  "useradd",
  "userdel",
  "usermod",
);

describe.skipIf(!tools.run || !isRoot())("forage-ctl gateway as sshd's ForceCommand", () => {
  // 10.217 is used by no other test file (grep test/ bench/ for "10.2").
  const host = new TestHost("10.217");
  const account = `fgw${process.pid % 100000}`;
  const terminal = new TmuxTerminal(host.dir);
  const sshDir = join(host.dir, "sshd");
  let port = 0;
  let sshd: Sshd | undefined;
  let sshdLog = "";

  /** The client's options: this test's key and host key only, nothing from ~/.ssh, no prompts. */
  const sshOptions = (): string[] => [
    "-F",
    "/dev/null",
    "-p",
    String(port),
    "-i",
    host.sshKey,
    "-o",
    "IdentitiesOnly=yes",
    "-o",
    "BatchMode=yes",
    "-o",
    `UserKnownHostsFile=${join(sshDir, "known_hosts")}`,
    "-o",
    "StrictHostKeyChecking=yes",
  ];
  const target = (): string => `${account}@127.0.0.1`;
  /** ssh with `args` (after the options), no terminal, never rejecting. */
  const ssh = (args: string[], extra: string[] = []) =>
    execa("ssh", [...sshOptions(), ...extra, target(), ...args], { reject: false, stdin: "ignore", timeout: 60_000 });

  beforeAll(async () => {
    // Every forage-ctl of this host, and the daemon its `up` starts, names the gateway account.
    host.extraEnv.FORAGE_GATEWAY_USER = account;
    execFileSync("useradd", [
      "--system",
      "--no-create-home",
      "--home-dir",
      "/nonexistent",
      "--shell",
      "/bin/sh",
      "--comment",
      "Forage gateway test (removed at the end)",
      account,
    ]);
    // "*": no password matches, and (unlike useradd's "!") sshd without PAM does not take it for locked; as the module sets it.
    execFileSync("usermod", ["-p", "*", account]);
    // The gateway account reads the config and reaches the run directory's sockets.
    chmodSync(host.dir, 0o755);
    expect((await host.run(["up", "remote", "-t", "basic", "-w", host.workspace("remote")])).exitCode).toBe(0);
    expect(existsSync(join(host.env.FORAGE_RUN_DIR ?? "", "daemon-gateway.sock"))).toBe(true);
    ({ port, sshd } = await startSshd());
  }, 180_000);

  afterAll(async () => {
    sshd?.kill("SIGTERM");
    await sshd?.catch(() => undefined);
    await terminal.stop();
    await host.cleanup();
    execFileSync("userdel", [account]);
  });

  /** ssh on the test's terminal (start waits for its previous tmux server to be gone). */
  async function sshOnTerminal(args: string[]): Promise<void> {
    await terminal.start(
      ["ssh", "-t", ...sshOptions(), target(), ...args],
      { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: host.dir, TERM: "xterm-256color" },
      host.dir,
    );
  }

  /** sshd -D on 127.0.0.1 with a test host key, the client's key for the account, and the module's Match block. */
  async function startSshd(): Promise<{ port: number; sshd: Sshd }> {
    mkdirSync(sshDir, { recursive: true });
    mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(sshDir, "host_key")]);
    writeFileSync(join(sshDir, "authorized_keys"), readFileSync(`${host.sshKey}.pub`), { mode: 0o644 });
    const free = await freePort();
    writeFileSync(
      join(sshDir, "known_hosts"),
      `[127.0.0.1]:${free} ${readFileSync(join(sshDir, "host_key.pub"), "utf8")}`,
    );
    const env = Object.entries(host.env)
      .map(([key, value]) => `${key}=${value}`)
      .join(" ");
    writeFileSync(
      join(sshDir, "sshd_config"),
      `ListenAddress 127.0.0.1
HostKey ${join(sshDir, "host_key")}
PidFile none
AuthorizedKeysFile ${join(sshDir, "authorized_keys")}
# The test's files live under /tmp, which StrictModes refuses as a parent (sticky, world-writable).
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
AllowUsers ${account}
Subsystem sftp /usr/lib/openssh/sftp-server
Match User ${account}
  ForceCommand env ${env} ${process.execPath} ${cliPath} gateway
  PermitTTY yes
  DisableForwarding yes
  AllowTcpForwarding no
  AllowStreamLocalForwarding no
  AllowAgentForwarding no
  X11Forwarding no
  PermitTunnel no
  GatewayPorts no
  PermitUserRC no
Match all
`,
    );
    const child = runSshd(join(sshDir, "sshd_config"), free);
    child.stderr?.on("data", (chunk: Buffer) => (sshdLog += chunk.toString()));
    for (let i = 0; i < 100 && !sshdLog.includes("Server listening"); i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sshdLog).toContain(`Server listening on 127.0.0.1 port ${free}`);
    return { port: free, sshd: child };
  }

  it("attaches `ssh -t account@host NAME` to the sandbox's tmux session, where what is typed runs in the sandbox", async () => {
    await sshOnTerminal(["remote"]);
    await terminal.waitFor(/\[forage\] 0:helper/, 60_000);
    await terminal.type("echo gw-$(hostname)-$((6*7))");
    await terminal.keys("Enter");
    await terminal.waitFor("gw-remote-42");
    await terminal.keys("C-b");
    await terminal.keys("d");
    await terminal.waitFor("[exited 0]");
  });

  it("opens the picker for `ssh -t account@host` with no name, listing the sandboxes, its wizard offering the daemon's templates", async () => {
    // No settings named in ForceCommand, none in the account's home: they are the daemon's, which the account never loads itself.
    await sshOnTerminal([]);
    await terminal.waitFor(/Forage sandboxes[\s\S]*remote +basic +running/, 30_000);
    await terminal.keys("n");
    await terminal.waitFor("step 1 of 5");
    await terminal.keys("Enter");
    await terminal.waitFor("› basic");
    await terminal.keys("C-c");
    await terminal.waitFor("[exited 0]");
  });

  it("lets the gateway account ask the daemon only what the gateway does (ps yes; port, a root shell no)", async () => {
    const uid = Number(execFileSync("id", ["-u", account], { encoding: "utf8" }));
    const asGateway = (args: string[]) =>
      execa(process.execPath, [cliPath, "--config", host.config, ...args], {
        uid,
        gid: uid,
        env: host.env,
        extendEnv: false,
        reject: false,
        stdin: "ignore",
        cwd: "/",
      });
    const listed = await asGateway(["ps", "--json"]);
    expect(listed.exitCode).toBe(0);
    expect(JSON.parse(String(listed.stdout))).toEqual([expect.objectContaining({ name: "remote", status: "running" })]);
    const port = await asGateway(["port", "remote", "8080"]);
    expect(port.exitCode).toBe(64);
    expect(String(port.stderr)).toMatch(/"port" is not for the gateway account/);
    const shell = await asGateway(["shell", "remote"]);
    expect(shell.exitCode).not.toBe(0);
    expect(String(shell.stderr)).toMatch(/a root shell in a sandbox is for root only/);
  });

  it("refuses a command with shell syntax in one line, exit 64, and runs none of it", async () => {
    const marker = `/tmp/forage-gateway-owned-${process.pid}`;
    const result = await ssh([`remote; touch ${marker}`]);
    expect(result.exitCode).toBe(64);
    expect(String(result.stderr)).toMatch(
      /^forage-ctl: gateway: refused the command "remote; touch \/tmp\/forage-gateway-owned-\d+": it has more than one word/m,
    );
    expect(existsSync(marker)).toBe(false);
  });

  it("tells a session without a terminal to connect with ssh -t", async () => {
    const result = await ssh(["remote"], ["-T"]);
    expect(result.exitCode).toBe(64);
    expect(String(result.stderr)).toMatch(/no terminal: connect with ssh -t/);
  });

  it("refuses sftp and scp: their requests arrive as a command the gateway does not run", async () => {
    // sftp shows none of the gateway's message, only that the connection closed before its handshake.
    const sftp = await execa("sftp", ["-b", "-", ...sshOptions().map((o) => (o === "-p" ? "-P" : o)), target()], {
      reject: false,
      input: "ls /etc\n",
      timeout: 60_000,
    });
    expect(sftp.exitCode).not.toBe(0);
    expect(String(sftp.stderr)).toMatch(/Connection closed/);
    expect(String(sftp.stdout)).not.toMatch(/passwd/);
    // The same subsystem request from ssh: sshd drops a subsystem's stderr, but the exit status is
    // the gateway's refusal (64, usage), not sftp-server's.
    const subsystem = await ssh(["sftp"], ["-s"]);
    expect(subsystem.exitCode).toBe(64);
    const scp = await execa(
      "scp",
      ["-O", ...sshOptions().map((o) => (o === "-p" ? "-P" : o)), host.config, `${target()}:/tmp/forage-gateway-scp`],
      {
        reject: false,
        stdin: "ignore",
        timeout: 60_000,
      },
    );
    expect(scp.exitCode).not.toBe(0);
    expect(String(scp.stderr)).toMatch(/refused the command "scp -t \/tmp\/forage-gateway-scp"/);
    expect(existsSync("/tmp/forage-gateway-scp")).toBe(false);
  });

  it("refuses port forwarding (-L to a TCP port or to the daemon's gateway socket, -R)", async () => {
    const listener = createServer((socket) => socket.end("reached\n"));
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    const targetPort = (listener.address() as { port: number }).port;
    const [tcpPort, unixPort] = [await freePort(), await freePort()];
    const gatewaySocket = join(host.env.FORAGE_RUN_DIR ?? "", "daemon-gateway.sock");
    const forwarding = ssh(
      [],
      ["-N", "-L", `${tcpPort}:127.0.0.1:${targetPort}`, "-L", `${unixPort}:${gatewaySocket}`],
    );
    let log = "";
    forwarding.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
    try {
      await waitForListener(tcpPort);
      expect(await readThrough(tcpPort, "")).toBe("");
      expect(await readThrough(unixPort, `${JSON.stringify({ op: "hello", args: {} })}\n`)).toBe("");
      for (let i = 0; i < 50 && (log.match(/administratively prohibited/g) ?? []).length < 2; i++)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect((log.match(/administratively prohibited/g) ?? []).length).toBe(2);
    } finally {
      forwarding.kill("SIGTERM");
      await forwarding;
      listener.close();
    }
    const remote = await ssh(
      [],
      ["-N", "-o", "ExitOnForwardFailure=yes", "-R", `${await freePort()}:127.0.0.1:${targetPort}`],
    );
    expect(remote.exitCode).not.toBe(0);
    expect(String(remote.stderr)).toMatch(/remote port forwarding failed/);
  });
});

/** sshd in the foreground, logging to stderr, with `config` on `port`. */
function runSshd(config: string, port: number) {
  return execa("/usr/sbin/sshd", ["-D", "-e", "-f", config, "-p", String(port)], { reject: false });
}
type Sshd = ReturnType<typeof runSshd>;

async function waitForListener(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => (socket.destroy(), resolve(true)));
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`nothing listens on 127.0.0.1:${port}`);
}

/** Connects to a local forward, sends `request`, and returns all it read before the close. */
function readThrough(port: number, request: string): Promise<string> {
  return new Promise((resolve) => {
    let data = "";
    const socket = connect(port, "127.0.0.1", () => void socket.write(request));
    socket.on("data", (chunk: Buffer) => (data += chunk.toString()));
    socket.once("close", () => resolve(data));
    socket.once("error", () => resolve(data));
    socket.setTimeout(10_000, () => socket.destroy());
  });
}
