import { readFile } from "node:fs/promises";
import type { z } from "zod";
import { writeFileAtomic } from "./write-file-atomic.js";

/**
 * A status file: what one process says of itself for others to read at any moment (the network
 * guard's guard.json, the API proxy's proxy.json). Written whole or not at all (a reader never
 * sees half of one), and read back through its schema: whoever wrote it (another build, another
 * process, a hand) is not trusted to have written the shape the reader expects. The writer's
 * status is typed by the schema's type; it is not checked again here: a status that failed to be
 * written (the guard's, after a reload took effect) would be worse than one a reader skips.
 */
export async function writeStatusFile(file: string, status: unknown, mode: number, group?: number): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(status)}\n`, mode, group);
}

/** The status in `file`, or undefined when there is none, or what is there is not one (not JSON, not its shape). */
export async function readStatusFile<T>(file: string, schema: z.ZodType<T>): Promise<T | undefined> {
  const text = await readFile(file, "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}
