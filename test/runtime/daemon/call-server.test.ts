import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { EventEmitter } from "node:events";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { plainOperations, type PlainOperation, type RequestMethods, type Result } from "../../../runtime/api/calls.js";
import { SandboxError } from "../../../runtime/core/errors.js";
import { callDaemon, remoteOperations, sendRequest } from "../../../runtime/daemon/client.js";
import type { RelayedSignal } from "../../../runtime/core/relayed-signals.js";
import { cases, startCallServer, type CallFixture } from "./call-fixture.js";

/** A writable that keeps what it is given, as text. */
function collector(): { stream: Writable; text: () => string } {
  const chunks: Buffer[] = [];
  return {
    stream: new Writable({ write: (chunk: Buffer, _encoding, done) => void (chunks.push(chunk), done()) }),
    text: () => Buffer.concat(chunks).toString(),
  };
}

/** Calls plain operation `op` with its case's request (generic, so the request and result stay typed). */
const callPlain = <K extends PlainOperation>(operations: RequestMethods<PlainOperation>, op: K): Promise<Result<K>> =>
  operations[op](cases[op].request);

/*
 * The call table end to end: the client's methods and the daemon's dispatch, over a real unix
 * socket, in front of fake operations (call-fixture.ts says what they stand in for).
 */
describe("the daemon's call table, client to server", () => {
  let fixture: CallFixture;
  const warnings: string[] = [];
  const remote = () => remoteOperations((warning) => void warnings.push(warning), fixture.socket);
  const lastSeen = () => fixture.seen.at(-1);

  beforeAll(async () => {
    fixture = await startCallServer(process.getuid?.() ?? 0);
  });
  afterAll(() => fixture.close());

  it.each(plainOperations)("%s: the request arrives parsed as it was built, and its result comes back", async (op) => {
    const result = await callPlain(remote(), op);
    expect(lastSeen()).toEqual([op, cases[op].request]);
    expect(result).toEqual(cases[op].result);
    // The request's context warns through the connection.
    expect(warnings.at(-1)).toBe(`${op} was asked`);
  });

  it("up: the request arrives as built, progress steps stream back, the sandbox and its timings return", async () => {
    const steps: string[] = [];
    const result = await remote().up(cases.up.request, (step) => void steps.push(step));
    expect(lastSeen()).toEqual(["up", cases.up.request]);
    expect(steps).toEqual(["booting"]);
    expect(result).toEqual(cases.up.result);
  });

  it("checkpoint: the request arrives as built, progress lines stream back, the checkpoint returns", async () => {
    const steps: string[] = [];
    const result = await remote().checkpoint(cases.checkpoint.request, (step) => void steps.push(step));
    expect(lastSeen()).toEqual(["checkpoint", cases.checkpoint.request]);
    expect(steps).toEqual(["saving"]);
    expect(result).toEqual(cases.checkpoint.result);
  });

  it("exec: the request arrives as built, stdin goes in, stdout and stderr come out, the exit status returns", async () => {
    const stdin = new PassThrough();
    const [stdout, stderr] = [collector(), collector()];
    stdin.end("through the daemon\n");
    const code = await remote().exec(cases.exec.request, { stdin, stdout: stdout.stream, stderr: stderr.stream });
    expect(lastSeen()).toEqual(["exec", cases.exec.request]);
    expect({ code, stdout: stdout.text(), stderr: stderr.text() }).toEqual({
      code: 7,
      stdout: "THROUGH THE DAEMON\n",
      stderr: "on stderr\n",
    });
  });

  it("exec: the signals the client relays reach the command's side, each as it comes", async () => {
    const stdin = new PassThrough();
    const stdout = collector();
    let relay: ((signal: RelayedSignal) => void) | undefined;
    const running = remote().exec(cases.exec.request, {
      stdin,
      stdout: stdout.stream,
      stderr: collector().stream,
      onSignal: (listener) => void (relay = listener),
    });
    await vi.waitFor(() => expect(relay).toBeDefined());
    relay?.("SIGINT");
    await vi.waitFor(() => expect(stdout.text()).toBe("signal SIGINT\n"));
    relay?.("SIGTERM");
    await vi.waitFor(() => expect(stdout.text()).toBe("signal SIGINT\nsignal SIGTERM\n"));
    stdin.end("done\n");
    expect(await running).toBe(7);
  });

  it("exec: stdin whose caller set a text encoding (its chunks are strings) goes in as its bytes", async () => {
    const stdin = new PassThrough();
    stdin.setEncoding("utf8");
    const [stdout, stderr] = [collector(), collector()];
    stdin.end("grüße\n");
    await remote().exec(cases.exec.request, { stdin, stdout: stdout.stream, stderr: stderr.stream });
    expect(stdout.text()).toBe("GRÜSSE\n");
  });

  it("exec: a relayed terminal's size and TERM arrive, and so do its resizes", async () => {
    const resizes = new EventEmitter<{ resize: [{ rows: number; cols: number }] }>();
    const stdout = collector();
    const terminal = {
      size: { rows: 30, cols: 90 },
      term: "xterm",
      onResize: (listener: (size: { rows: number; cols: number }) => void) => void resizes.on("resize", listener),
    };
    // The fake says the size it got, then waits for a resize: sent once that line is here.
    const onOutput = new Writable({
      write: (chunk: Buffer, encoding, done) =>
        void (stdout.stream.write(chunk, encoding), resizes.emit("resize", { rows: 50, cols: 132 }), done()),
    });
    const code = await remote().exec(cases.exec.request, {
      stdin: null,
      stdout: onOutput,
      stderr: collector().stream,
      terminal,
    });
    expect(stdout.text()).toBe("xterm 30x90\n");
    expect(code).toBe(50);
  });

  it("exec: refuses to run as root in a sandbox for a daemon client, before the operation runs", async () => {
    const before = fixture.seen.length;
    const refused = remote().exec(
      { ...cases.exec.request, asRoot: true },
      { stdin: null, stdout: collector().stream, stderr: collector().stream },
    );
    await expect(refused).rejects.toThrow(/^a root shell in a sandbox is for root only/);
    await expect(refused).rejects.toMatchObject({ kind: "usage" });
    expect(fixture.seen.length).toBe(before);
  });

  it("up: refuses a workspace the served user does not own, before the operation runs", async () => {
    const other = await startCallServer(4242);
    const workspace = mkdtempSync(join(tmpdir(), "forage-not-yours-"));
    try {
      const refused = remoteOperations(() => undefined, other.socket).up({ ...cases.up.request, workspace });
      await expect(refused).rejects.toThrow(/is not owned by the configured user \(uid 4242\)/);
      expect(other.seen).toEqual([]);
    } finally {
      rmSync(workspace, { recursive: true, force: true });
      await other.close();
    }
  });

  it("up: accepts a workspace the served user owns, and hands it on as sent", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "forage-yours-"));
    try {
      await remote().up({ ...cases.up.request, workspace });
      expect(lastSeen()).toEqual(["up", { ...cases.up.request, workspace }]);
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  });

  it("hello, proxyStatus and shutdown are answered by the daemon itself", async () => {
    expect(await callDaemon("hello", {}, fixture.socket)).toEqual({
      settings: join(fixture.dir, "forage.yaml"),
      pid: process.pid,
    });
    expect(await callDaemon("proxyStatus", {}, fixture.socket)).toBeNull();
    expect(await callDaemon("shutdown", {}, fixture.socket)).toBe("stopping");
    expect(fixture.stops).toBe(1);
  });

  it("logs each call with its sandbox, except hello", () => {
    expect(fixture.log).toContain("down demo");
    expect(fixture.log).toContain("list");
    expect(fixture.log.some((line) => line.startsWith("hello"))).toBe(false);
  });

  it("reads the settings file only when it changed: an unchanged file costs every call a stat, no load", () => {
    expect(fixture.reloads).toBe(0);
    expect(new Set(fixture.templatesSeen.map((names) => names.join()))).toEqual(new Set(["coder"]));
  });
});

/*
 * Issue 27: the user's commands ran with the settings of the daemon's start. They follow the
 * file now: an edit counts for the next command, one with errors keeps the last good settings
 * and every command hears why, with positions, until it is fixed.
 */
describe("the daemon's calls on the user's socket, after the settings file is edited", () => {
  let fixture: CallFixture;
  const warnings: string[] = [];
  const remote = () => remoteOperations((warning) => void warnings.push(warning), fixture.socket);
  const coder = "  coder:\n    agents: { sh: { package: bash, executable: bash } }\n";

  beforeAll(async () => {
    fixture = await startCallServer(process.getuid?.() ?? 0);
  });
  afterAll(() => fixture.close());

  it("runs the next call with the edited settings, loading the file once for the edit", async () => {
    writeFileSync(fixture.config, `user: nobody\ntemplates:\n${coder}  writer:\n    extends: coder\n`);
    await remote().list({});
    await remote().list({});
    expect(fixture.templatesSeen.at(-1)).toEqual(["coder", "writer"]);
    expect(fixture.reloads).toBe(1);
  });

  it("keeps the last good settings through an edit with errors, and says so with positions on every call until it is fixed", async () => {
    writeFileSync(fixture.config, `user: nobody\ntemplates:\n${coder}    network: sideways\n`);
    warnings.length = 0;
    await remote().list({});
    await remote().status(cases.status.request);
    expect(fixture.templatesSeen.slice(-2)).toEqual([
      ["coder", "writer"],
      ["coder", "writer"],
    ]);
    const said = warnings.filter((warning) => warning.includes("not taken"));
    expect(said).toHaveLength(2);
    expect(said[0]).toMatch(
      /forage\.yaml changed, but its settings are not taken \(the last good ones stay in force until it is fixed\):\n.*forage\.yaml:5:\d+: templates\.coder\.network/,
    );
    writeFileSync(fixture.config, `user: nobody\ntemplates:\n${coder}`);
    warnings.length = 0;
    await remote().list({});
    expect(fixture.templatesSeen.at(-1)).toEqual(["coder"]);
    expect(warnings.filter((warning) => warning.includes("not taken"))).toEqual([]);
  });

  it("keeps the state directory it started with, and says the edit waits for its restart", async () => {
    writeFileSync(
      fixture.config,
      `user: nobody\nstateDir: /var/lib/elsewhere\ntemplates:\n${coder}  third:\n    extends: coder\n`,
    );
    warnings.length = 0;
    await remote().list({});
    expect(fixture.templatesSeen.at(-1)).toEqual(["coder", "third"]);
    expect(warnings).toContainEqual(
      expect.stringMatching(/forage\.yaml changes stateDir: the daemon keeps what it started with until it restarts/),
    );
  });
});

/*
 * Root's socket: the kernel admits root alone (listenPrivately, tested for real in
 * private-socket.test.ts and the daemon's integration test), so a request there is root's own
 * command and runs as `sudo forage-ctl` would here.
 */
describe("the daemon's calls on root's socket", () => {
  let fixture: CallFixture;
  const notes: string[] = [];
  const remote = () =>
    remoteOperations(
      () => undefined,
      fixture.socket,
      (line) => void notes.push(line),
    );
  const quiet = () => ({ stdin: null, stdout: collector().stream, stderr: collector().stream });

  beforeAll(async () => {
    fixture = await startCallServer(4242, "root");
  });
  afterAll(() => fixture.close());

  it("up: mounts a workspace the served user does not own, as root's own up would", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "forage-roots-"));
    try {
      await remote().up({ ...cases.up.request, workspace });
      expect(fixture.seen.at(-1)).toEqual(["up", { ...cases.up.request, workspace }]);
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  });

  it("exec: runs as root in the sandbox when asked (sudo forage-ctl shell)", async () => {
    expect(await remote().exec({ ...cases.exec.request, asRoot: true }, quiet())).toBe(7);
    expect(fixture.seen.at(-1)).toEqual(["exec", { ...cases.exec.request, asRoot: true }]);
  });

  it("reads the settings file again for each call, so an edit counts at once; hello does not", async () => {
    const before = fixture.reloads;
    await callDaemon("hello", {}, fixture.socket);
    expect(fixture.reloads).toBe(before);
    writeFileSync(
      fixture.config,
      "user: nobody\ntemplates:\n  coder:\n    agents: { sh: { package: bash, executable: bash } }\n  writer:\n    extends: coder\n",
    );
    await remote().list({});
    expect(fixture.reloads).toBe(before + 1);
    expect(fixture.templatesSeen.at(-1)).toEqual(["coder", "writer"]);
  });

  it("relays the config's notes as lines for stderr", async () => {
    writeFileSync(
      fixture.config,
      "user: nobody\ntemplates:\n  coder:\n    allowedHosts: [api.example.org]\n    agents: { sh: { package: bash, executable: bash } }\n",
    );
    notes.length = 0;
    await remote().list({});
    expect(notes).toEqual([
      expect.stringMatching(/forage\.yaml:4:\d+.*allowedHosts is the reference's spelling of network\.allow/),
    ]);
  });

  it("refuses a call when the config has errors, with the report the CLI prints for them (kind config), before the operation runs", async () => {
    writeFileSync(
      fixture.config,
      "user: nobody\ntemplates:\n  coder:\n    agents: { sh: { package: bash, executable: bash } }\n    network: sideways\n",
    );
    const before = fixture.seen.length;
    const refused = remote().down(cases.down.request);
    await expect(refused).rejects.toMatchObject({ kind: "config" });
    const error = (await refused.catch((caught: unknown) => caught)) as SandboxError;
    expect(error.report("forage-ctl")).toMatch(/forage\.yaml:5:\d+.*\nforage-ctl: 1 problem in the config\n$/);
    expect(fixture.seen.length).toBe(before);
  });
});

describe("the daemon's refusals of requests that fail their schema", () => {
  let fixture: CallFixture;
  const send = (op: string, args: object, streams?: object) =>
    sendRequest({ op, args, ...(streams === undefined ? {} : { streams }) }, {}, fixture.socket);

  beforeAll(async () => {
    fixture = await startCallServer(process.getuid?.() ?? 0);
  });
  afterAll(() => fixture.close());

  it.each([
    ["a value beyond its limit", "down", { name: "demo", grace: 99_999 }, /^invalid down request: grace: /],
    ["a missing field", "status", {}, /^invalid status request: name: /],
    ["a field the call does not take", "hello", { settings: "/etc/shadow" }, /^invalid hello request: /],
    [
      "a bad sandbox name (saying the rule, as an in-process command does)",
      "start",
      { name: "../etc" },
      /^invalid start request: name: invalid sandbox name "\.\.\/etc": use 1-63 characters of a-z, 0-9 and '-'/,
    ],
    [
      "a relative workspace path",
      "up",
      { name: "demo", template: "coder", workspace: "src" },
      /^invalid up request: workspace: /,
    ],
    [
      "a snapshot action of no known kind",
      "snapshot",
      { name: "demo", action: { kind: "delete" } },
      /^invalid snapshot request: action/,
    ],
  ])("refuses %s as a usage error naming the field, and runs nothing", async (_what, op, args, message) => {
    const refused = send(op, args);
    await expect(refused).rejects.toThrow(message);
    await expect(refused).rejects.toMatchObject({ kind: "usage" });
    expect(fixture.seen).toEqual([]);
  });

  it("refuses an exec whose streams description fails its schema, naming the field", async () => {
    const refused = send("exec", cases.exec.request, { stdin: "yes" });
    await expect(refused).rejects.toThrow(/^invalid exec request: streams\.stdin: /);
    expect(fixture.seen).toEqual([]);
  });

  it("refuses an operation it does not know as a usage error", async () => {
    const refused = send("nosuch", {});
    await expect(refused).rejects.toThrow('unknown operation "nosuch"');
    await expect(refused).rejects.toBeInstanceOf(SandboxError);
    await expect(refused).rejects.toMatchObject({ kind: "usage" });
  });

  it("never takes a method of the object behind the table for an operation", async () => {
    await expect(send("via", {})).rejects.toThrow('unknown operation "via"');
    await expect(send("toString", {})).rejects.toThrow('unknown operation "toString"');
  });
});
