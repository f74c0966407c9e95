import { createHash } from "node:crypto";
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
  /** Refusals of this kind for this sandbox left out since its last such line (see ProxyAuditLog). */
  suppressed?: number;
  /** Key forms taken out of the upstream's answer (headers and body) before the sandbox saw it. */
  redacted?: number;
  /** What the sandbox was not told: the upstream's error, the address it refused. */
  detail?: string;
}

/** Longer text fields keep this many characters and a hash of the whole (a 15 KB path is one short line). */
const maxField = 256;

/**
 * Refusals of one kind for one sandbox within this window make one line (with a count of the
 * rest): at most 9 kinds × 8640 lines a day from a sandbox that does nothing but get refused.
 */
const defaultCondenseMs = 10_000;

/** Lines waiting for the disk beyond which new ones are dropped (and counted): memory stays bounded. */
const maxPending = 10_000;

/**
 * Lines are gathered this long before they are written: a busy proxy then makes one write for many
 * requests instead of one each (a write cost it more than the rest of a small request's record).
 */
const gatherMs = 10;

/** Old files kept beside the log: `<log>.1` (newest) … `<log>.3`. */
const keptFiles = 3;

/**
 * The proxy's JSONL audit log, owner-only (0600), rotated when it reaches `maxBytes`. Lines are
 * queued and written in batches (those of `gatherMs`) through one open file, so a busy proxy does
 * not pay a file open or a write per request; lines never interleave and rotation never loses one.
 */
export class ProxyAuditLog {
  private pending: string[] = [];
  private writing: Promise<void> = Promise.resolve();
  private busy = false;
  private file: FileHandle | undefined;
  private size = 0;
  private lastComplaint = 0;
  /** Per sandbox and refusal kind: when its last line was written, and how many were left out since. */
  private readonly refusals = new Map<string, { at: number; suppressed: number }>();
  failures = 0;

  constructor(
    readonly path: string,
    private readonly maxBytes: number,
    private readonly log: (line: string) => void,
    /** The condensing window (tests shorten it). */
    private readonly condenseMs = defaultCondenseMs,
  ) {}

  /**
   * Queues a record. Long text fields are cut (prefix + hash). A sandbox's refusals of one kind
   * make one line per window with the count of those left out, so no sandbox can roll the other
   * sandboxes' records out of the rotation with refused requests; forwarded requests are bounded
   * by its rate limit.
   */
  write(record: ProxyAuditRecord): void {
    if (record.refused !== null) {
      const kept = this.condensed(record);
      if (kept === null) return;
      record = kept;
    }
    record = bounded(record);
    if (this.pending.length >= maxPending) {
      this.failures += 1;
      return;
    }
    this.pending.push(`${JSON.stringify(record)}\n`);
    if (!this.busy) {
      this.busy = true;
      this.writing = new Promise((resolve) => setTimeout(resolve, gatherMs)).then(() => this.drain());
    }
  }

  /** The record to write for a refusal, with the count left out before it; null to leave it out. */
  private condensed(record: ProxyAuditRecord): ProxyAuditRecord | null {
    const now = Date.now();
    const key = `${record.sandbox} ${record.refused ?? ""}`;
    const last = this.refusals.get(key);
    if (last !== undefined && now - last.at < this.condenseMs) {
      last.suppressed += 1;
      return null;
    }
    // Entries older than the window carry nothing forward but their count: keep the map small.
    if (this.refusals.size > 4096)
      for (const [name, entry] of this.refusals)
        if (now - entry.at >= this.condenseMs && entry.suppressed === 0) this.refusals.delete(name);
    this.refusals.set(key, { at: now, suppressed: 0 });
    return last !== undefined && last.suppressed > 0 ? { ...record, suppressed: last.suppressed } : record;
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
          this.log(
            `audit log ${this.path}: ${(error as NodeJS.ErrnoException).code ?? String(error)} (${this.failures} lines lost so far)`,
          );
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
    for (let index = keptFiles - 1; index >= 1; index -= 1)
      await rename(`${this.path}.${index}`, `${this.path}.${index + 1}`).catch(() => undefined);
    await rename(this.path, `${this.path}.1`);
    await this.open();
  }
}

/** The record with every long text field cut to a prefix and the SHA-256 (16 hex digits) of the whole. */
function bounded(record: ProxyAuditRecord): ProxyAuditRecord {
  const cut = (text: string): string =>
    text.length <= maxField
      ? text
      : `${text.slice(0, maxField - 40)}…[${text.length} chars, sha256 ${createHash("sha256").update(text).digest("hex").slice(0, 16)}]`;
  const out = {
    ...record,
    sandbox: cut(record.sandbox),
    agent: cut(record.agent),
    provider: cut(record.provider),
    method: cut(record.method),
    path: cut(record.path),
  };
  if (record.detail !== undefined) out.detail = cut(record.detail);
  if (record.refused !== null) out.refused = cut(record.refused);
  return out;
}
