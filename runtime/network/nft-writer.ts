import { spawn, type ChildProcess } from "node:child_process";
import { printNftLine } from "../../generator/emit/nft/index.js";

/** nft answered a line with an error: the transaction was not committed. */
export class NftRefusedError extends Error {
  override readonly name = "NftRefusedError";
}

export interface NftWriterOptions {
  /** A line not answered by then fails, and its process is killed (default 10 s). */
  timeoutMs?: number;
  /**
   * nft -i keeps every line it read in its in-memory history: a process is replaced (once idle)
   * after this many lines or bytes, which bounds its memory to a few MiB.
   */
  maxLines?: number;
  maxBytes?: number;
  /** An idle process ends after this long (a few MiB per sandbox saved); the next script starts another. */
  idleMs?: number;
}

/**
 * Loads small nft scripts (set elements) through one long-lived `nft -i` (argv, e.g.
 * `["nft", "-i"]` or `["nsenter", "--net=…", "--", "nft", "-i"]`): a write to its stdin costs
 * well under a millisecond where a new nft process costs ~12 ms. Each script becomes one line,
 * which nft commits as one transaction. Scripts may be sent while others are in flight; nft
 * handles lines in order.
 *
 * How a line's end is known: nft prints nothing for a line that worked (an add of an element
 * already there does not even start a new generation), and its errors on stderr. So each line
 * is followed by a sentinel line that nft's scanner refuses at its first character (`%`); the
 * error echoes the sentinel on stderr after whatever the line printed there (nft reads a line
 * only once it is done with the one before), and any other error before it is the line's.
 * A process that dies (or the first line of a fresh one that fails to start) fails what it had
 * in flight; the next script starts a new one, and a script whose process died before answering
 * is sent once more on a new one.
 */
export class NftWriter {
  private session: Session | null = null;
  private readonly options: Required<NftWriterOptions>;

  constructor(
    private readonly argv: readonly [string, ...string[]],
    options: NftWriterOptions = {},
  ) {
    this.options = { timeoutMs: 10_000, maxLines: 1000, maxBytes: 1 << 20, idleMs: 60_000, ...options };
  }

  /** Resolves once nft committed the script; throws NftRefusedError if nft refused it, Error if nft could not be run. */
  async run(script: string): Promise<void> {
    const line = printNftLine(script);
    try {
      await this.current().send(line);
    } catch (error) {
      if (!(error instanceof WriterDiedError)) throw error;
      await this.current().send(line);
    }
  }

  /** Starts the process ahead of the first script, so that one does not wait for it. */
  warm(): void {
    this.current();
  }

  /** The running process's id, if one runs (for diagnostics). */
  get pid(): number | undefined {
    return this.session?.usable === true ? this.session.pid : undefined;
  }

  /** Ends the process (it exits at the end of its input, after what is in flight). */
  close(): void {
    this.session?.end();
    this.session = null;
  }

  private current(): Session {
    const session = this.session;
    if (session !== null && session.usable && !(session.idle && session.spent(this.options))) return session;
    session?.end();
    this.session = new Session(this.argv, this.options);
    return this.session;
  }
}

/** The process died (or never ran) before it answered a line. */
class WriterDiedError extends Error {}

interface Pending {
  sentinel: string;
  /** The `Error:` lines nft printed since the line was sent. */
  errors: string[];
  resolve: () => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/** One `nft -i` process and the lines in flight on it. */
class Session {
  private readonly child: ChildProcess;
  private readonly pending: Pending[] = [];
  private stderr = "";
  private sent = 0;
  private bytes = 0;
  private dead = false;
  private ended = false;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    argv: readonly [string, ...string[]],
    private readonly options: Required<NftWriterOptions>,
  ) {
    const [command, ...args] = argv;
    // nft -i reads and writes a history file in $HOME: not root's home, with every admitted address.
    this.child = spawn(command, args, { env: { ...process.env, HOME: "/nonexistent" }, stdio: ["pipe", "ignore", "pipe"] });
    this.child.stderr?.setEncoding("utf8").on("data", (chunk: string) => this.read(chunk));
    this.child.on("error", (error) => this.die(error.message));
    // After exit and the end of stderr: the answers it still held are read first.
    this.child.on("close", (code, signal) => this.die(`nft exited (${signal ?? String(code)})`));
    this.child.stdin?.on("error", (error) => this.die(error.message));
    this.waitIdle();
  }

  /** Takes lines: running, and its input not ended. */
  get usable(): boolean {
    return !this.dead && !this.ended;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get idle(): boolean {
    return this.pending.length === 0;
  }

  spent(limits: Required<NftWriterOptions>): boolean {
    return this.sent >= limits.maxLines || this.bytes >= limits.maxBytes;
  }

  send(line: string): Promise<void> {
    if (!this.usable) return Promise.reject(new WriterDiedError("nft is not running"));
    clearTimeout(this.idleTimer);
    const sentinel = `%forage-sync-${++this.sent}`;
    this.bytes += line.length;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.child.kill("SIGKILL");
        this.die(`nft did not answer in ${this.options.timeoutMs / 1000} s`, false);
      }, this.options.timeoutMs);
      this.pending.push({ sentinel, errors: [], resolve, reject, timer });
      this.child.stdin?.write(`${line}\n${sentinel}\n`);
    });
  }

  end(): void {
    this.ended = true;
    clearTimeout(this.idleTimer);
    this.child.stdin?.end();
  }

  private waitIdle(): void {
    this.idleTimer = setTimeout(() => this.end(), this.options.idleMs);
    this.idleTimer.unref();
  }

  /** Sorts stderr's lines to the line in flight; the sentinel's echo ends it. */
  private read(chunk: string): void {
    this.stderr += chunk;
    const lines = this.stderr.split("\n");
    this.stderr = lines.pop() ?? "";
    for (const text of lines) {
      const head = this.pending[0];
      if (head === undefined) continue; // the tail of the last sentinel's error (its caret line)
      if (text !== head.sentinel) {
        if (text.startsWith("Error:")) head.errors.push(text);
        continue;
      }
      this.pending.shift();
      clearTimeout(head.timer);
      // The last error is the sentinel's own; any before it is the line's.
      if (head.errors.length <= 1) head.resolve();
      else head.reject(new NftRefusedError(`nft refused the script: ${head.errors.slice(0, -1).join("; ")}`));
      if (this.idle) this.waitIdle();
    }
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
