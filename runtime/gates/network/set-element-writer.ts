import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import type { NftTableRef } from "../../../generator/emit/nft/index.js";
import { packageRoot } from "../../core/package-root.js";
import { setElementRequest, type SetElementOp } from "./set-element-request.js";

/** The kernel refused a request (the table or set is gone, an element does not fit): nothing of it was committed. */
export class SetElementsRefusedError extends Error {
  override readonly name = "SetElementsRefusedError";
}

export interface SetElementWriterOptions {
  /** A request not answered by then fails, and its process is killed (default 10 s). */
  timeoutMs?: number;
  /** An idle process ends after this long (default a minute); the next request starts another. */
  idleMs?: number;
  /** The program and its arguments before `--netns` (default: the built native helper). */
  command?: readonly [string, ...string[]];
}

/** The built helper (scripts/build-native.sh, part of `npm run build`). */
function setElementsHelper(): string {
  return join(packageRoot(), "dist/native/forage-set-elements");
}

/**
 * Writes set elements through one long-lived forage-set-elements (native/forage-set-elements.c)
 * in a network namespace (null: this process's): each request is one nf_tables transaction over
 * netlink, ~0.1 ms, answered "ok" or "err …" once the kernel committed or refused it, so a
 * resolved `run` means the elements are in the set. No nft process per write (~12 ms) and no nft
 * cache fetched per write. Requests may be sent while others are in flight; they are answered in
 * order. A process that dies fails what it had in flight, and the next request starts another; a
 * request whose process died before answering is sent once more on a new one.
 */
export class SetElementWriter {
  private session: Session | null = null;
  private closed = false;
  private readonly argv: readonly [string, ...string[]];
  private readonly options: { timeoutMs: number; idleMs: number };

  constructor(netns: string | null, options: SetElementWriterOptions = {}) {
    const [command, ...args] = options.command ?? [setElementsHelper()];
    this.argv = [command, ...args, ...(netns === null ? [] : ["--netns", netns])];
    this.options = { timeoutMs: options.timeoutMs ?? 10_000, idleMs: options.idleMs ?? 60_000 };
  }

  /** Resolves once the kernel committed the ops (one transaction); throws SetElementsRefusedError if it refused them. */
  async run(table: NftTableRef, ops: readonly SetElementOp[]): Promise<void> {
    const request = setElementRequest(table, ops);
    try {
      await this.current().send(request);
    } catch (error) {
      if (!(error instanceof WriterDiedError)) throw error;
      await this.current().send(request);
    }
  }

  /** Starts the process ahead of the first request, so that one does not wait for it. */
  warm(): void {
    this.current();
  }

  /** The running process's id, if one runs (for diagnostics). */
  get pid(): number | undefined {
    return this.session?.usable === true ? this.session.pid : undefined;
  }

  /** Ends the process (it exits at the end of its input, after what is in flight); a later request is refused, not a new process. */
  close(): void {
    this.closed = true;
    this.session?.end();
    this.session = null;
  }

  private current(): Session {
    // A guard closed while a DNS answer was on its way must not start a helper in a namespace it left.
    if (this.closed) throw new Error("the set-element writer is closed");
    if (this.session?.usable === true) return this.session;
    this.session?.end();
    this.session = new Session(this.argv, this.options);
    return this.session;
  }
}

/** The process died (or never ran) before it answered a request. */
class WriterDiedError extends Error {}

interface Pending {
  resolve: () => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/** One helper process and the requests in flight on it. */
class Session {
  private readonly child: ChildProcess;
  private readonly pending: Pending[] = [];
  private stdout = "";
  private stderr = "";
  private dead = false;
  private ended = false;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    argv: readonly [string, ...string[]],
    private readonly options: { timeoutMs: number; idleMs: number },
  ) {
    const [command, ...args] = argv;
    this.child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdout?.setEncoding("utf8").on("data", (chunk: string) => this.read(chunk));
    // Its complaint (it could not join the namespace, say), for the error of what it had in flight.
    this.child.stderr
      ?.setEncoding("utf8")
      .on("data", (chunk: string) => void (this.stderr = (this.stderr + chunk).slice(-400)));
    this.child.on("error", (error) => this.die(error.message));
    // After exit and the end of its output: the answers it still held are read first.
    this.child.on("close", (code, signal) =>
      this.die(
        `forage-set-elements exited (${signal ?? String(code)})${this.stderr === "" ? "" : `: ${this.stderr.trim()}`}`,
      ),
    );
    // A write to a process that is gone (EPIPE): its close, which follows, says why and fails what was in flight.
    this.child.stdin?.on("error", () => undefined);
    this.waitIdle();
  }

  /** Takes requests: running, and its input not ended. */
  get usable(): boolean {
    return !this.dead && !this.ended;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  send(request: string): Promise<void> {
    if (!this.usable) return Promise.reject(new WriterDiedError("forage-set-elements is not running"));
    clearTimeout(this.idleTimer);
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.child.kill("SIGKILL");
        this.die(`forage-set-elements did not answer in ${this.options.timeoutMs / 1000} s`, false);
      }, this.options.timeoutMs);
      this.pending.push({ resolve, reject, timer });
      this.child.stdin?.write(`${request}\n`);
    });
  }

  end(): void {
    this.ended = true;
    clearTimeout(this.idleTimer);
    this.child.stdin?.end();
  }

  private waitIdle(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.end(), this.options.idleMs);
    this.idleTimer.unref();
  }

  /** Each answer line settles the oldest request in flight. */
  private read(chunk: string): void {
    const lines = (this.stdout + chunk).split("\n");
    this.stdout = lines.pop() ?? "";
    for (const line of lines) {
      const head = this.pending.shift();
      if (head === undefined) continue;
      clearTimeout(head.timer);
      if (line === "ok") head.resolve();
      else
        head.reject(
          new SetElementsRefusedError(`the kernel refused the set elements: ${line.replace(/^err \d+ /, "")}`),
        );
    }
    if (this.pending.length === 0 && this.usable) this.waitIdle();
  }

  private die(reason: string, retry = true): void {
    if (this.dead) return;
    this.dead = true;
    clearTimeout(this.idleTimer);
    for (const pending of this.pending.splice(0)) {
      clearTimeout(pending.timer);
      pending.reject(retry ? new WriterDiedError(reason) : new Error(reason));
    }
    this.end();
  }
}
