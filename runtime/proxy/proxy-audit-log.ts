import { mkdir, open, rename, type FileHandle } from "node:fs/promises";
import { dirname } from "node:path";

/** One proxied request as the audit log records it: never a key, a body or a query string. */
export interface ProxyAuditRecord {
  time: string;
  sandbox: string;
  agent: string;
  provider: string;
  method: string;
  /** Upstream path without its query (a query may carry a key). */
  path: string;
  status: number;
  requestBytes: number;
  responseBytes: number;
  durationMs: number;
  tokens: number;
  /** Why the proxy answered itself (rate limit, filter, upstream error), or null when upstream did. */
  refused: string | null;
  /** Rate-limit refusals of this sandbox left out since its last such line (see ProxyAuditLog). */
  suppressed?: number;
}

/** Lines waiting for the disk beyond which new ones are dropped (and counted): memory stays bounded. */
const maxPending = 10_000;

/** Old files kept beside the log: `<log>.1` (newest) … `<log>.3`. */
const keptFiles = 3;

/**
 * The proxy's JSONL audit log, owner-only (0600), rotated when it reaches `maxBytes`. Lines are
 * queued and written in batches through one open file, so a busy proxy does not pay a file open
 * per request; lines never interleave and rotation never loses one.
 */
export class ProxyAuditLog {
  private pending: string[] = [];
  private writing: Promise<void> = Promise.resolve();
  private busy = false;
  private file: FileHandle | undefined;
  private size = 0;
  private lastComplaint = 0;
  /** Per sandbox: when its last rate-limit line was written, and how many were left out since. */
  private readonly refusals = new Map<string, { at: number; suppressed: number }>();
  failures = 0;

  constructor(
    readonly path: string,
    private readonly maxBytes: number,
    private readonly log: (line: string) => void,
  ) {}

  /**
   * Queues a record. A sandbox over its rate limit gets one line a second with the count of the
   * refusals left out, so no sandbox can roll the other sandboxes' records out of the rotation.
   */
  write(record: ProxyAuditRecord): void {
    if (record.refused === "rate-limit") {
      const now = Date.now();
      const last = this.refusals.get(record.sandbox);
      if (last !== undefined && now - last.at < 1000) {
        last.suppressed += 1;
        return;
      }
      this.refusals.set(record.sandbox, { at: now, suppressed: 0 });
      if (last !== undefined && last.suppressed > 0) record = { ...record, suppressed: last.suppressed };
    }
    if (this.pending.length >= maxPending) {
      this.failures += 1;
      return;
    }
    this.pending.push(`${JSON.stringify(record)}\n`);
    if (!this.busy) {
      this.busy = true;
      this.writing = this.drain();
    }
  }

  /** Resolves when every line written so far is on disk. */
  flushed(): Promise<void> {
    return this.writing;
  }

  /** Writes what is left and closes the file. */
  async close(): Promise<void> {
    await this.writing;
    await this.file?.close();
    this.file = undefined;
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0) {
      const lines = this.pending;
      this.pending = [];
      try {
        await this.append(lines);
      } catch (error) {
        this.failures += lines.length;
        // Said at most once a minute: a full disk must not turn into a log flood.
        if (Date.now() - this.lastComplaint > 60_000) {
          this.lastComplaint = Date.now();
          this.log(`audit log ${this.path}: ${(error as NodeJS.ErrnoException).code ?? String(error)} (${this.failures} lines lost so far)`);
        }
        await this.file?.close().catch(() => undefined);
        this.file = undefined;
      }
    }
    this.busy = false;
  }

  /** Appends lines, rotating first whenever the next line would pass the limit. */
  private async append(lines: string[]): Promise<void> {
    let batch = "";
    for (const line of lines) {
      if (this.file === undefined) await this.open();
      if (this.size + batch.length > 0 && this.size + batch.length + line.length > this.maxBytes) {
        await this.file?.write(batch);
        this.size += Buffer.byteLength(batch);
        batch = "";
        await this.rotate();
      }
      batch += line;
    }
    if (batch === "") return;
    if (this.file === undefined) await this.open();
    await this.file?.write(batch);
    this.size += Buffer.byteLength(batch);
  }

  private async open(): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    this.file = await open(this.path, "a", 0o600);
    this.size = (await this.file.stat()).size;
  }

  private async rotate(): Promise<void> {
    await this.file?.close();
    this.file = undefined;
    for (let index = keptFiles - 1; index >= 1; index -= 1) await rename(`${this.path}.${index}`, `${this.path}.${index + 1}`).catch(() => undefined);
    await rename(this.path, `${this.path}.1`);
    await this.open();
  }
}
