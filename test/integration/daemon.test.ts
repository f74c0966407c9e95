import { createHash } from "node:crypto";
import { chmodSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { EventEmitter } from "node:events";
import { PassThrough, Writable } from "node:stream";
import { execa } from "execa";
import { remoteOperations } from "../../runtime/daemon/client.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliPath, repoRoot } from "../cli/run-cli.js";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { agentUid, TestHost, type CliRun } from "./harness.js";
import { startTestDaemon } from "./test-daemon.js";

/*
 * The daemon serves the configured user (here: nobody) over its socket, with no sudo: the CLI
 * runs as that user, the daemon does the privileged work, and sandboxes outlive daemon restarts.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock");

describe.skipIf(!tools.run || !isRoot())("the forage daemon", () => {
  const host = new TestHost("10.238");
  const socket = join(host.env.FORAGE_RUN_DIR ?? "", "daemon.sock");
  let daemon: Promise<unknown> | undefined;
  let daemonLog = (): string => "";

  const startDaemon = async (): Promise<void> => {
    const started = await startTestDaemon(host);
    daemon = started.exited;
    daemonLog = started.log;
  };
  const stopDaemon = async (): Promise<void> => {
    await host.run(["daemon", "--stop"]);
    await daemon;
  };
  /** Runs the CLI as another (non-root) user, as a person without sudo would. */
  const runAs = async (uid: number, args: string[], input?: string): Promise<CliRun> => {
    const result = await execa(
      "setpriv",
      [`--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", "--", process.execPath, cliPath, ...args],
      {
        cwd: repoRoot,
        env: { PATH: "/usr/bin:/bin", FORAGE_RUN_DIR: host.env.FORAGE_RUN_DIR ?? "" },
        extendEnv: false,
        reject: false,
        stripFinalNewline: false,
        ...(input === undefined ? { stdin: "ignore" as const } : { input }),
      },
    );
    return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
  };

  /**
   * `forage-ctl attach dmn` as the configured user, on a 40x100 terminal that `script` gives it as
   * a terminal emulator would; resolves once tmux has drawn its status line with the session name.
   */
  const attachAsUser = async () => {
    const client = execa(
      "setpriv",
      [
        `--reuid=${agentUid}`,
        `--regid=${agentUid}`,
        "--clear-groups",
        "--",
        "script",
        "-qefc",
        'stty rows 40 cols 100 && exec "$NODE" "$CLI" attach dmn',
        "/dev/null",
      ],
      {
        env: {
          PATH: "/usr/bin:/bin",
          SHELL: "/bin/sh",
          TERM: "xterm",
          NODE: process.execPath,
          CLI: cliPath,
          FORAGE_RUN_DIR: host.env.FORAGE_RUN_DIR ?? "",
        },
        extendEnv: false,
        reject: false,
        stdin: "pipe",
      },
    );
    let screen = "";
    client.stdout?.on("data", (chunk: Buffer) => (screen += chunk.toString()));
    for (let i = 0; i < 100 && !screen.includes("[forage]"); i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    return { client, screen: () => screen };
  };

  beforeAll(async () => {
    // Like /run: the user must be able to traverse to the socket (the socket's own mode decides).
    chmodSync(host.dir, 0o711);
    await startDaemon();
  });
  afterAll(async () => {
    await stopDaemon().catch(() => undefined);
    await host.cleanup();
  });

  it("opens its socket to root and the configured user only, and root's to root alone (the VM test's expectation)", () => {
    const expected = JSON.parse(readFileSync(join(repoRoot, "test/nixos/expectations.json"), "utf8")) as Record<
      "daemonSocket" | "rootSocket",
      { path: string; mode: string }
    >;
    const info = statSync(socket);
    expect((info.mode & 0o777).toString(8)).toBe(expected.daemonSocket.mode);
    expect(info.uid).toBe(agentUid);
    expect(info.gid).toBe(0);
    const roots = statSync(join(host.env.FORAGE_RUN_DIR ?? "", basename(expected.rootSocket.path)));
    expect([(roots.mode & 0o777).toString(8), roots.uid, roots.gid]).toEqual([expected.rootSocket.mode, 0, 0]);
  });

  it("lets the configured user create, use and list a sandbox without sudo", async () => {
    const up = await runAs(agentUid, ["up", "dmn", "-t", "basic", "-w", host.workspace("dmn")]);
    expect(up.stderr).toBe("");
    expect(up.exitCode).toBe(0);
    expect((await runAs(agentUid, ["exec", "dmn", "--", "id", "-u"])).stdout).toBe(`${agentUid}\n`);
    expect((await runAs(agentUid, ["exec", "dmn", "--", "sh", "-c", "exit 7"])).exitCode).toBe(7);
    expect(await runAs(agentUid, ["exec", "dmn", "--", "tr", "a-z", "A-Z"], "through the daemon\n")).toMatchObject({
      exitCode: 0,
      stdout: "THROUGH THE DAEMON\n",
    });
    const list = JSON.parse((await runAs(agentUid, ["ps", "--json"])).stdout) as { name: string; status: string }[];
    expect(list).toEqual([expect.objectContaining({ name: "dmn", status: "running" })]);
  });

  it("answers the configured user's `runtime` as the side that creates sandboxes (it said none was available, needing root)", async () => {
    const shown = await runAs(agentUid, ["runtime", "--json"]);
    expect(shown.exitCode, shown.stderr).toBe(0);
    const { detected, runtimes } = JSON.parse(shown.stdout) as {
      detected: string | null;
      runtimes: { name: string; available: boolean; reason: string }[];
    };
    expect(detected).toBe("nspawn");
    expect(runtimes.find((runtime) => runtime.name === "nspawn")).toMatchObject({ available: true, reason: "" });
    expect(shown.stdout).not.toContain("needs root");
  });

  it("never gives its clients a root shell in a sandbox", async () => {
    const shell = await runAs(agentUid, ["shell", "dmn"], "id -u\n");
    expect(shell.exitCode).toBe(64);
    expect(shell.stderr).toContain("a root shell in a sandbox is for root only");
    expect(shell.stdout).not.toContain("0\n");
  });

  it("refuses a workspace the configured user does not own", async () => {
    const refused = await runAs(agentUid, ["up", "evil", "-t", "basic", "-w", "/root"]);
    expect(refused.exitCode).toBe(64);
    expect(refused.stderr).toContain("is not owned by the configured user");
    expect((await runAs(agentUid, ["status", "evil"])).exitCode).toBe(2);
  });

  it("serves root's own commands on a socket only root reaches: a root shell there is root's, the user cannot connect", async () => {
    const rootSocket = join(host.env.FORAGE_RUN_DIR ?? "", "daemon-root.sock");
    const info = statSync(rootSocket);
    expect([(info.mode & 0o777).toString(8), info.uid, info.gid]).toEqual(["600", 0, 0]);
    // Root's shell goes to the daemon (it serves this very config and build), and is root's there.
    const before = daemonLog()
      .split("\n")
      .filter((line) => line.endsWith("forage-daemon: exec dmn")).length;
    const shell = await host.run(["shell", "dmn"], "id -u\n");
    expect(shell.exitCode, shell.stderr).toBe(0);
    expect(shell.stdout).toMatch(/^0$/m);
    expect(
      daemonLog()
        .split("\n")
        .filter((line) => line.endsWith("forage-daemon: exec dmn")).length,
    ).toBe(before + 1);
    // The configured user, who owns the other socket, cannot connect to root's.
    const connect = `require("net").connect(${JSON.stringify(rootSocket)}).on("connect", () => process.exit(0)).on("error", (e) => { console.log(e.code); process.exit(3); })`;
    const user = await execa(
      "setpriv",
      [`--reuid=${agentUid}`, `--regid=${agentUid}`, "--clear-groups", "--", process.execPath, "-e", connect],
      { reject: false },
    );
    expect([user.exitCode, String(user.stdout).trim()]).toEqual([3, "EACCES"]);
  });

  it("is unreachable for another user", async () => {
    const outsider = await runAs(4242, ["ps"]);
    expect(outsider.exitCode).toBe(1);
    expect(outsider.stderr).toContain("the forage daemon is not reachable");
    expect(outsider.stderr).toContain("EACCES");
  });

  it("relays a terminal to a user without root: attach shows the agent's tmux session and detaches", async () => {
    const { client, screen } = await attachAsUser();
    expect(screen()).toContain("[forage]");
    client.stdin?.write("\x02d");
    const result = await client;
    expect(screen()).toContain("[detached (from session forage)]");
    expect(result.exitCode).toBe(0);
  });

  it("hangs up the sandbox side when an attached client goes away, leaving no process behind", async () => {
    const { client } = await attachAsUser();
    const inside = "tmux list-clients | wc -l; ps -eo comm | grep -c '^forage-terminal$' || true";
    expect((await runAs(agentUid, ["exec", "dmn", "--", "sh", "-c", inside])).stdout).toBe("1\n1\n");
    client.kill("SIGKILL");
    await client;
    let after = "";
    for (let i = 0; i < 40 && after !== "0\n0\n"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = (await runAs(agentUid, ["exec", "dmn", "--", "sh", "-c", inside])).stdout;
    }
    expect(after).toBe("0\n0\n");
  });

  it("gives an interactive exec through the daemon a terminal that follows the client's size", async () => {
    const output: Buffer[] = [];
    const resizes = new EventEmitter();
    const stdin = new PassThrough();
    const script = 'trap "stty size; exit 5" WINCH; tty; stty size; while :; do sleep 0.1; done';
    const exec = remoteOperations(() => undefined, socket).exec(
      { name: "dmn", command: ["sh", "-c", script], asRoot: false },
      {
        stdin,
        stdout: new Writable({ write: (chunk: Buffer, _encoding, done) => void (output.push(chunk), done()) }),
        stderr: process.stderr,
        terminal: {
          size: { rows: 30, cols: 90 },
          term: "xterm",
          onResize: (listener) => void resizes.on("resize", listener),
        },
      },
    );
    const text = (): string => Buffer.concat(output).toString();
    for (let i = 0; i < 100 && !text().includes("30 90"); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    resizes.emit("resize", { rows: 50, cols: 132 });
    expect(await exec).toBe(5);
    expect(text()).toMatch(/^\/dev\/pts\/\d+\r\n30 90\r\n50 132\r\n$/);
  });

  it("relays a paste larger than one frame byte for byte onto the sandbox's terminal", async () => {
    const output: Buffer[] = [];
    const stdin = new PassThrough();
    // Raw mode inside (no line-length limit, no echo), then a checksum of exactly what arrived.
    const script = "stty raw -echo && echo ready && head -c 204800 | sha256sum";
    const exec = remoteOperations(() => undefined, socket).exec(
      { name: "dmn", command: ["sh", "-c", script], asRoot: false },
      {
        stdin,
        stdout: new Writable({ write: (chunk: Buffer, _encoding, done) => void (output.push(chunk), done()) }),
        stderr: process.stderr,
        terminal: { size: { rows: 24, cols: 80 }, term: "xterm", onResize: () => undefined },
      },
    );
    const text = (): string => Buffer.concat(output).toString();
    for (let i = 0; i < 200 && !text().includes("ready"); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    // Printable bytes only: a raw terminal still turns nothing of them into a signal.
    const paste = Buffer.alloc(204800, 0).map((_, i) => 0x21 + (i % 90));
    stdin.write(paste);
    expect(await exec).toBe(0);
    expect(text()).toContain(createHash("sha256").update(paste).digest("hex"));
  });

  it("keeps sandboxes running across a daemon restart and serves them again", async () => {
    const { pid } = JSON.parse((await runAs(agentUid, ["status", "dmn", "--json"])).stdout) as { pid: number };
    await stopDaemon();
    expect(() => process.kill(pid, 0)).not.toThrow();
    expect((await runAs(agentUid, ["ps"])).exitCode).toBe(1);
    await startDaemon();
    expect((await runAs(agentUid, ["exec", "dmn", "--", "echo", "still here"])).stdout).toBe("still here\n");
    const down = await runAs(agentUid, ["down", "dmn", "-t", "1"]);
    expect(down.stderr).toBe("");
    expect(down.exitCode).toBe(0);
  });
});
