import { appendFile, mkdir, rename, stat } from "node:fs/promises";
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
}

/** Old files kept beside the log: `<log>.1` (newest) … `<log>.3`. */
const keptFiles = 3;

/**
 * The proxy's JSONL audit log, owner-only (0600), rotated when it reaches `maxBytes`. Writes are
 * queued so lines never interleave and rotation never loses one.
 */
export class ProxyAuditLog {
  private queue: Promise<void> = Promise.resolve();
  private size: number | undefined;
  failures = 0;

  constructor(
    readonly path: string,
    private readonly maxBytes: number,
    private readonly log: (line: string) => void,
  ) {}

  write(record: ProxyAuditRecord): void {
    const line = `${JSON.stringify(record)}\n`;
    this.queue = this.queue.then(() => this.append(line)).catch((error: unknown) => {
      this.failures += 1;
      if (this.failures === 1 || this.failures % 1000 === 0) this.log(`audit log ${this.path}: ${(error as NodeJS.ErrnoException).code ?? String(error)} (${this.failures} lines lost)`);
    });
  }

  /** Resolves when every line written so far is on disk. */
  flushed(): Promise<void> {
    return this.queue;
  }

  private async append(line: string): Promise<void> {
    if (this.size === undefined) {
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
      this.size = (await stat(this.path).catch(() => undefined))?.size ?? 0;
    }
    if (this.size > 0 && this.size + line.length > this.maxBytes) await this.rotate();
    await appendFile(this.path, line, { mode: 0o600 });
    this.size += Buffer.byteLength(line);
  }

  private async rotate(): Promise<void> {
    for (let index = keptFiles - 1; index >= 1; index -= 1) await rename(`${this.path}.${index}`, `${this.path}.${index + 1}`).catch(() => undefined);
    await rename(this.path, `${this.path}.1`);
    this.size = 0;
  }
}
