import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { metadataPath, type RuntimePaths } from "../core/paths.js";
import { SandboxError } from "../core/errors.js";
import { sandboxMetadataSchema, type SandboxMetadata } from "./metadata.js";
import { writeFileAtomic } from "../core/write-file-atomic.js";
import { issueList } from "../../generator/lib/issue-list.js";

/**
 * Metadata that exists but cannot be read back: reported with every problem and what to do,
 * never silently ignored, and not a bug of forage-ctl (someone or something edited the file).
 */
export class CorruptMetadataError extends SandboxError {
  override name = "CorruptMetadataError";
  constructor(file: string, problems: string[]) {
    const shown = problems.length > 8 ? [...problems.slice(0, 8), `${problems.length - 8} more`] : problems;
    super(
      `${file} is not valid sandbox metadata: ${shown.join("; ")} (restore or remove the file; forage-ctl gc then lists what the sandbox left behind)`,
      "general",
    );
  }
}

/** Reads one sandbox's metadata; undefined when it does not exist. */
export async function readMetadata(paths: RuntimePaths, name: string): Promise<SandboxMetadata | undefined> {
  const file = metadataPath(paths, name);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const json = safeJson(text);
  if (json === undefined) throw new CorruptMetadataError(file, ["not JSON"]);
  const parsed = sandboxMetadataSchema.safeParse(json);
  if (!parsed.success)
    throw new CorruptMetadataError(
      file,
      parsed.error.issues.map((issue) => issueList([issue])),
    );
  return parsed.data;
}

/** Every sandbox's metadata, sorted by name. */
export async function listMetadata(paths: RuntimePaths): Promise<SandboxMetadata[]> {
  let entries: string[];
  try {
    entries = await readdir(paths.sandboxesDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const names = entries
    .filter((e) => e.endsWith(".json"))
    .map((e) => e.slice(0, -".json".length))
    .sort();
  const all = await Promise.all(names.map((name) => readMetadata(paths, name)));
  return all.filter((m): m is SandboxMetadata => m !== undefined);
}

/**
 * Writes metadata atomically: a temporary file in the same directory, fsync, rename. A crash
 * leaves either the old or the new file, never a torn one. Mode 0640: root and the host group.
 */
export async function writeMetadata(paths: RuntimePaths, metadata: SandboxMetadata): Promise<void> {
  const file = metadataPath(paths, sandboxMetadataSchema.parse(metadata).name);
  await mkdir(dirname(file), { recursive: true, mode: 0o750 });
  await writeFileAtomic(file, `${JSON.stringify(metadata, null, 2)}\n`, 0o640);
}

export async function removeMetadata(paths: RuntimePaths, name: string): Promise<void> {
  await rm(metadataPath(paths, name), { force: true });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
