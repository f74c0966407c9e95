import { appendFile, mkdir, readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { eventsPath, type RuntimePaths } from "./paths.js";

export type AuditEventKind = "create" | "start" | "stop" | "reset" | "destroy" | "exec" | "snapshot" | "network" | "ssh-sign" | "error" | "warning" | "approval-asked" | "approval-answered" | "push";

export interface AuditEvent {
  time: string;
  sandbox: string;
  event: AuditEventKind;
  detail?: string;
  exitCode?: number;
}

/** Appends one event to the sandbox's JSONL audit log (0640; never a secret value). */
export async function recordEvent(paths: RuntimePaths, sandbox: string, event: AuditEventKind, extra: Omit<AuditEvent, "time" | "sandbox" | "event"> = {}): Promise<void> {
  const file = eventsPath(paths, sandbox);
  await mkdir(dirname(file), { recursive: true, mode: 0o750 });
  const entry: AuditEvent = { time: new Date().toISOString(), sandbox, event, ...extra };
  await appendFile(file, `${JSON.stringify(entry)}\n`, { mode: 0o640 });
}

/** The sandbox's events, oldest first; lines that are not events are skipped. */
export async function readEvents(paths: RuntimePaths, sandbox: string): Promise<AuditEvent[]> {
  const text = await readFile(eventsPath(paths, sandbox), "utf8").catch(() => "");
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as AuditEvent];
      } catch {
        return [];
      }
    });
}
