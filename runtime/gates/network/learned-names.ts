import { readFile, rm } from "node:fs/promises";
import { z } from "zod";
import { pathUnder } from "../../core/names.js";
import type { RuntimePaths } from "../../core/paths.js";
import { writeFileAtomic } from "../../core/write-file-atomic.js";

/**
 * Learn mode's bounds. A sandbox in learn mode may ask for any name (it runs as in full mode), so
 * what is kept of it is capped: a sandbox making up names (random labels, a DNS tunnel) fills the
 * list and stops there instead of growing root's state without end. At the caps the file is at
 * most about 1024 × (253 + 16 × 40 + 80) bytes, under 1 MiB.
 */
export const maxLearnedNames = 1024;
export const maxLearnedAddresses = 16;

/** One name a sandbox resolved in learn mode, with the addresses it got (A and AAAA, at the CNAME chain's end). */
export const learnedNameSchema = z.strictObject({
  name: z.string().max(253),
  addresses: z.array(z.string().max(45)).max(maxLearnedAddresses),
  /** When it was first and last resolved (ISO 8601), and how many answers it got. */
  first: z.string(),
  last: z.string(),
  count: z.number().int().min(1),
});

export type LearnedName = z.infer<typeof learnedNameSchema>;

/**
 * Where a sandbox's learned names are kept: beside its metadata
 * (`<state>/sandboxes/<name>.learned.jsonl`, root's, 0600), so they outlive the guard, a restart
 * of the sandbox and a reboot, and go with `forage-ctl down`. Not `.json`: that suffix is metadata.
 */
export function learnedNamesPath(paths: RuntimePaths, sandbox: string): string {
  return pathUnder(paths.sandboxesDir, `${sandbox}.learned.jsonl`);
}

/** A sandbox's learned names, in the order first seen; lines that do not parse are skipped. */
export async function readLearnedNames(paths: RuntimePaths, sandbox: string): Promise<LearnedName[]> {
  const text = await readFile(learnedNamesPath(paths, sandbox), "utf8").catch(() => "");
  return text.split("\n").flatMap((line) => {
    if (line.trim() === "") return [];
    try {
      const parsed = learnedNameSchema.safeParse(JSON.parse(line));
      return parsed.success ? [parsed.data] : [];
    } catch {
      return [];
    }
  });
}

export async function removeLearnedNames(paths: RuntimePaths, sandbox: string): Promise<void> {
  await rm(learnedNamesPath(paths, sandbox), { force: true });
}

/**
 * The guard's copy of a sandbox's learned names: loaded when the guard opens (it may have been
 * restarted), added to on every answer in learn mode, and written back whole, atomically, at most
 * once per guard tick (a busy sandbox asks many names a second; the file is rewritten once).
 */
export class LearnedNames {
  private readonly names = new Map<string, LearnedName>();
  private dirty = false;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly file: string) {}

  async load(): Promise<void> {
    const text = await readFile(this.file, "utf8").catch(() => "");
    for (const line of text.split("\n")) {
      if (line.trim() === "" || this.names.size >= maxLearnedNames) continue;
      try {
        const parsed = learnedNameSchema.safeParse(JSON.parse(line));
        if (parsed.success) this.names.set(parsed.data.name, parsed.data);
      } catch {
        // a torn or edited line: skipped (the file is root's; nothing else reads it as code)
      }
    }
  }

  /** Records an answer; a new name past maxLearnedNames is not recorded (the list says it is full). */
  add(name: string, addresses: readonly string[], now = new Date()): void {
    const time = now.toISOString();
    const known = this.names.get(name);
    if (known === undefined) {
      if (this.names.size >= maxLearnedNames || name.length > 253) return;
      this.names.set(name, {
        name,
        addresses: [...new Set(addresses)].slice(0, maxLearnedAddresses),
        first: time,
        last: time,
        count: 1,
      });
    } else {
      const merged = [...new Set([...known.addresses, ...addresses])].slice(0, maxLearnedAddresses);
      this.names.set(name, { ...known, addresses: merged, last: time, count: known.count + 1 });
    }
    this.dirty = true;
  }

  /** Writes the list when it changed since the last write (root's alone: 0600). */
  flush(): Promise<void> {
    if (!this.dirty) return this.writing;
    this.dirty = false;
    const text = [...this.names.values()].map((entry) => `${JSON.stringify(entry)}\n`).join("");
    this.writing = this.writing
      .then(() => writeFileAtomic(this.file, text, 0o600))
      .catch(() => {
        this.dirty = true; // tried again at the next tick
      });
    return this.writing;
  }
}
