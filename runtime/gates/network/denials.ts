import { appendFile, readFile, rename, stat } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { dropUndefined } from "../../../generator/lib/drop-undefined.js";

/** The file an agent reads inside its sandbox: `/run/forage/network/denials.jsonl`. */
export const denialsMountPath = "/run/forage/network";
export const denialsFileName = "denials.jsonl";
/** Rotated to `denials.jsonl.1` past this size; one old file is kept. */
const rotateBytes = 1024 * 1024;

/**
 * One refusal: a name the DNS filter refused, or packets the host-side table refused (one record
 * per destination and poll interval, with the number of packets).
 */
export const denialRecordSchema = z.strictObject({
  time: z.string(),
  kind: z.enum(["dns", "tcp", "udp", "icmp", "sni", "other"]),
  /** The name asked for (dns, sni), or the name the address was resolved for. */
  name: z.string().optional(),
  address: z.string().optional(),
  port: z.number().int().min(0).max(65535).optional(),
  /** Which rule refused it, e.g. "not in allow", "deny *.paste.example", "mode none". */
  rule: z.string(),
  /** Packets (or queries) refused since the previous record of the same destination. */
  count: z.number().int().min(1),
});

export type DenialRecord = z.infer<typeof denialRecordSchema>;

/** Appends records to a sandbox's denials file (in the directory prepareNetwork made), rotating it by size. */
export class DenialLog {
  private readonly file: string;
  private tail: Promise<void> = Promise.resolve();

  constructor(directory: string) {
    this.file = join(directory, denialsFileName);
  }

  append(records: readonly DenialRecord[]): Promise<void> {
    if (records.length === 0) return this.tail;
    const text = records.map((record) => `${JSON.stringify(record)}\n`).join("");
    this.tail = this.tail.then(() => this.write(text)).catch(() => undefined);
    return this.tail;
  }

  private async write(text: string): Promise<void> {
    const size = await stat(this.file).then(
      (s) => s.size,
      () => 0,
    );
    if (size + text.length > rotateBytes) await rename(this.file, `${this.file}.1`).catch(() => undefined);
    await appendFile(this.file, text, { mode: 0o640 });
  }
}

/** A sandbox's denial records, oldest first (the rotated file, then the current one); bad lines are skipped. */
export async function readDenials(directory: string): Promise<DenialRecord[]> {
  const records: DenialRecord[] = [];
  for (const file of [`${denialsFileName}.1`, denialsFileName]) {
    const text = await readFile(join(directory, file), "utf8").catch(() => "");
    for (const line of text.split("\n")) {
      if (line === "") continue;
      try {
        const parsed = denialRecordSchema.safeParse(JSON.parse(line));
        if (parsed.success) records.push(parsed.data);
      } catch {
        // a torn last line while the guard writes: read it next time
      }
    }
  }
  return records;
}

/** Distinct refusals kept per interval; past it, refusals are counted under one overflow record. */
const maxTallied = 1000;

/**
 * Refused names (dns, sni), counted between two writes: a sandbox repeating or flooding a name
 * costs one record per interval, not one write per query.
 */
export class RefusalTally {
  private readonly counts = new Map<string, { record: Omit<DenialRecord, "time" | "count">; count: number }>();

  /** Keeps only the fields a record has (a refusal may carry more, e.g. the query type, which readers would reject). */
  add(refusal: Omit<DenialRecord, "time" | "count">): void {
    const { kind, name, address, port, rule } = refusal;
    const record = dropUndefined({ kind, name, address, port, rule });
    const key = JSON.stringify([record.kind, record.name, record.port, record.rule]);
    const entry = this.counts.get(key) ?? (this.counts.size < maxTallied ? { record, count: 0 } : undefined);
    if (entry !== undefined) {
      entry.count++;
      this.counts.set(key, entry);
      return;
    }
    const overflow = { kind: record.kind, rule: "more refusals than recorded per second" } as const;
    const other = this.counts.get("overflow") ?? { record: overflow, count: 0 };
    other.count++;
    this.counts.set("overflow", other);
  }

  /** The records since the last take, stamped `now`. */
  take(now: Date = new Date()): DenialRecord[] {
    const records = [...this.counts.values()].map(({ record, count }) => ({
      time: now.toISOString(),
      ...record,
      count,
    }));
    this.counts.clear();
    return records;
  }
}
