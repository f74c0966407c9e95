import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../generator/config/load-config.js";
import { resolveModel } from "../../../generator/model/resolve.js";
import {
  methodsFor,
  plainOperations,
  type OperationName,
  type PlainOperation,
  type Request,
  type Result,
} from "../../../runtime/api/calls.js";
import type { ExecStreams } from "../../../runtime/api/exec-streams.js";
import type { Operations } from "../../../runtime/api/operations.js";
import type { SandboxView } from "../../../runtime/api/sandbox-view.js";
import type { RuntimeContext } from "../../../runtime/core/context.js";
import { ApprovalQueue } from "../../../runtime/gates/approvals/approval-queue.js";
import { recordEvent } from "../../../runtime/core/audit-log.js";
import { runtimePaths } from "../../../runtime/core/paths.js";
import type { Caller } from "../../../runtime/daemon/daemon-handlers.js";
import { callServer, type DaemonServer } from "../../../runtime/daemon/server.js";
import { FollowedSettings, fileKey } from "../../../runtime/daemon/followed-settings.js";
import type { LoginStatus } from "../../../runtime/logins/login-status.js";
import type { LoadedSettings } from "../../../runtime/settings/load-settings.js";

/*
 * The daemon's dispatch (callServer, daemonHandlers) on a unix socket in a temp dir, in front of
 * a fake of the in-process operations: it stands in for localOperations, which needs root and
 * real sandboxes (test/integration/daemon.test.ts drives those). The fake records the requests
 * it is handed and answers each operation's canned result.
 */

const view: SandboxView = {
  name: "demo",
  template: "coder",
  address: "10.100.3.2",
  workspaceMode: "direct",
  workspaceVcs: null,
  runtime: "nspawn",
  workspace: "/home/someone/demo",
  sourceRepo: null,
  pool: false,
  status: "running",
  slot: 3,
  containerName: "f3",
  startedAt: "2026-11-21T00:00:00.000Z",
  createdAt: "2026-11-21T00:00:00.000Z",
  pid: 4242,
  user: "agent",
  sshHostKey: null,
  resourceLimits: { cpuQuota: null, memoryMax: "4G", tasksMax: 4096 },
  resourceLimitsFrom: "cgroup",
  network: { mode: "restricted", from: "table" },
  apiProxy: null,
  workspaceDisk: null,
  seccomp: { allowed: [], warning: null, refused: null },
  ports: [{ hostPort: 8080, port: 3000 }],
  pushGate: null,
};

const login: LoginStatus = {
  agent: "claude",
  flavor: "claude",
  wanted: ["token"],
  stored: "token",
  state: "valid",
  setAt: "2026-11-21T00:00:00.000Z",
  expiresAt: "2027-11-21T00:00:00.000Z",
  refreshedAt: null,
};

/** One request per operation (valid for its schema), and what the fake answers it. */
export const cases: { [K in OperationName]: { request: Request<K>; result: Result<K> } } = {
  up: {
    request: { name: "demo", template: "coder", gitUser: "Some One", muxConfig: false, timings: true },
    result: { ...view, timings: { phases: [{ phase: "root", startMs: 0, ms: 12 }], totalMs: 15 } },
  },
  down: { request: { name: "demo", grace: 10 }, result: undefined },
  list: { request: {}, result: [view] },
  status: { request: { name: "demo" }, result: view },
  start: { request: { name: "demo" }, result: undefined },
  stop: { request: { name: "demo", grace: 0 }, result: undefined },
  reset: { request: { name: "demo" }, result: undefined },
  checkpoint: { request: { name: "demo", wait: 5 }, result: { savedAt: "2026-11-21T00:00:00.000Z", bytes: 2041563 } },
  restore: { request: { name: "demo" }, result: undefined },
  auditLog: {
    request: { name: "demo" },
    result: [{ time: "2026-11-21T00:00:00.000Z", sandbox: "demo", event: "exec", detail: "id (1 args)", exitCode: 0 }],
  },
  logs: { request: { name: "demo", lines: 50 }, result: [{ window: "claude", lines: ["hello"] }] },
  gc: { request: { force: true }, result: [{ kind: "lock file", name: "old", detail: "/var/lib/forage/old.lock" }] },
  exec: { request: { name: "demo", command: ["tr", "a-z", "A-Z"], asRoot: false }, result: 7 },
  snapshot: {
    request: { name: "demo", action: { kind: "create", snapshot: "before" } },
    result: [{ name: "before", commit: "0123456789abcdef", createdAt: "2026-11-21T00:00:00.000Z" }],
  },
  network: {
    request: { name: "demo", change: { mode: "restricted", allow: ["example.org:443"], sni: true } },
    result: {
      name: "demo",
      template: "basic",
      policy: { mode: "restricted", allow: ["example.org:443"], deny: [], sni: true },
      templatePolicy: { mode: "none", allow: [], deny: [], sni: false },
      running: false,
      guard: null,
      deniedNames: [
        { name: "evil.example", kind: "dns", rule: "not in allow", count: 1, last: "2026-11-21T00:00:00.000Z" },
      ],
      learned: [
        {
          name: "api.example.org",
          addresses: ["192.0.2.1"],
          first: "2026-11-21T00:00:00.000Z",
          last: "2026-11-21T00:00:00.000Z",
          count: 2,
        },
      ],
      learnedLimit: 1024,
    },
  },
  denials: {
    request: { name: "demo" },
    result: [{ time: "2026-11-21T00:00:00.000Z", kind: "dns", name: "evil.example", rule: "not in allow", count: 1 }],
  },
  authSet: { request: { agent: "claude", text: "sk-ant-oat01-test\n" }, result: login },
  authStatus: { request: {}, result: [login] },
  authRemove: { request: { agent: "claude" }, result: undefined },
  port: {
    request: { name: "demo", change: { kind: "add", forward: { hostPort: 8080, port: 3000 } } },
    result: [
      {
        hostPort: 8080,
        port: 3000,
        hostAddress: "127.0.0.1",
        sandboxAddress: "10.100.3.2",
        state: "open",
        error: null,
      },
    ],
  },
  templates: { request: {}, result: [{ name: "claude", description: "Claude Code" }] },
  runtimes: {
    request: {},
    result: [
      {
        name: "nspawn",
        description: "systemd-nspawn on a tmpfs root",
        available: true,
        reason: "",
        capabilities: {
          nixosConfig: false,
          networkIsolation: true,
          ephemeralRoot: true,
          ssh: true,
          generatedFiles: false,
          resourceLimits: true,
          gracefulShutdown: true,
          checkpoint: false,
        },
      },
    ],
  },
};

/** What the fake operations were handed, in order: the operation and its request. */
export type Seen = [OperationName, unknown][];

/**
 * Fake in-process operations answering `cases`. Plain operations warn through the request's
 * context (as the real ones do); up reports a progress step; exec relays stdin upper-cased.
 */
export function fakeOperations(context: RuntimeContext, seen: Seen): Operations {
  const answer = <K extends PlainOperation>(op: K) =>
    async function (request: Request<K>): Promise<Result<K>> {
      seen.push([op, request]);
      context.warn(`${op} was asked`);
      return cases[op].result;
    };
  return {
    via: "in-process",
    ...methodsFor(plainOperations, answer),
    async up(request, progress) {
      seen.push(["up", request]);
      progress?.("booting");
      return cases.up.result;
    },
    async checkpoint(request, progress) {
      seen.push(["checkpoint", request]);
      progress?.("saving");
      return cases.checkpoint.result;
    },
    async exec(request, streams) {
      seen.push(["exec", request]);
      return fakeExec(streams);
    },
  };
}

/** Upper-cases stdin to stdout; with a terminal, says its size and exits with the rows of the first resize. */
async function fakeExec(streams: ExecStreams): Promise<number> {
  const { terminal } = streams;
  if (terminal !== undefined) {
    const resized = new Promise<number>((resolve) => terminal.onResize((size) => resolve(size.rows)));
    streams.stdout.write(`${terminal.term} ${terminal.size.rows}x${terminal.size.cols}\n`);
    return resized;
  }
  // Each signal the client relays is said as it arrives.
  streams.onSignal?.((signal) => void streams.stdout.write(`signal ${signal}\n`));
  let input = "";
  for await (const chunk of streams.stdin ?? []) input += String(chunk);
  streams.stdout.write(input.toUpperCase());
  streams.stderr.write("on stderr\n");
  return cases.exec.result;
}

/** A call server on a socket in a fresh temp dir, its fake's record, and what shutdown did. */
export interface CallFixture {
  socket: string;
  dir: string;
  /** The settings file it serves (root's requests read it afresh; the user's when it changed). */
  config: string;
  seen: Seen;
  /** The templates of the settings each operation ran with, in order. */
  templatesSeen: string[][];
  /** How often the settings file was read again. */
  reloads: number;
  log: string[];
  stops: number;
  server: DaemonServer;
  close(): Promise<void>;
}

/**
 * Starts callServer on a temp socket; `ownerUid` is the user whose workspaces up may mount, and
 * `caller` who its socket admits (a root caller's requests read the config again, for real).
 */
export async function startCallServer(ownerUid: number, caller: Caller = "user"): Promise<CallFixture> {
  const dir = mkdtempSync(join(tmpdir(), "forage-calls-"));
  const config = join(dir, "forage.yaml");
  writeFileSync(
    config,
    "user: nobody\ntemplates:\n  coder:\n    agents: { sh: { package: bash, executable: bash } }\n",
  );
  const load = async (): Promise<LoadedSettings> => {
    const loaded = await loadConfig(config);
    return { settings: resolveModel(loaded.config, config), notes: loaded.notes };
  };
  const context: RuntimeContext = {
    settings: (await load()).settings,
    paths: runtimePaths(join(dir, "state"), {}),
    warn: () => undefined,
  };
  const fixture: Omit<CallFixture, "server" | "close"> = {
    socket: join(dir, "daemon.sock"),
    dir,
    config,
    seen: [],
    templatesSeen: [],
    reloads: 0,
    log: [],
    stops: 0,
  };
  const reloadSettings = (): Promise<LoadedSettings> => (fixture.reloads++, load());
  // The user's requests follow the file as the daemon's do (one stat a call, a load per change).
  const followed = new FollowedSettings(
    config,
    context.settings,
    await fileKey(config),
    async () => (await reloadSettings()).settings,
  );
  const approvals = new ApprovalQueue({
    audit: (sandbox, event, detail) => recordEvent(context.paths, sandbox, event, { detail }),
    defaultDeadlineMs: 2000,
  });
  const served = {
    ownerUid,
    hello: { settings: config, pid: process.pid },
    stop: () => void fixture.stops++,
    reloadSettings,
    followed,
    approvals,
  };
  const operations = (requestContext: RuntimeContext): Operations => {
    fixture.templatesSeen.push(requestContext.settings.templates.map((template) => template.name));
    return fakeOperations(requestContext, fixture.seen);
  };
  const server = callServer(context, (line) => void fixture.log.push(line), { served, operations, caller });
  await new Promise<void>((resolve) => server.listener.listen(fixture.socket, resolve));
  return Object.assign(fixture, {
    server,
    close: async () => {
      await server.close();
      // The queue writes its audit lines in the background: every one on disk before the directory goes.
      approvals.close();
      await approvals.flush();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}
