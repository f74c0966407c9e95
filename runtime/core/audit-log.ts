import { appendFile, mkdir, readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { eventsPath, type RuntimePaths } from "./paths.js";

const auditEventKinds = [
  "create",
  "start",
  "stop",
  "reset",
  "checkpoint",
  "restore",
  "destroy",
  "exec",
  "snapshot",
  "network",
  "ssh-sign",
  "error",
  "warning",
  "approval-asked",
  "approval-answered",
  "push",
  "mcp-call",
] as const;
export type AuditEventKind = (typeof auditEventKinds)[number];

export interface AuditEvent {
  time: string;
  sandbox: string;
  event: AuditEventKind;
  detail?: string;
  exitCode?: number;
}

/** Appends one event to the sandbox's JSONL audit log (0640; never a secret value). */
export async function recordEvent(
  paths: RuntimePaths,
  sandbox: string,
  event: AuditEventKind,
  extra: Omit<AuditEvent, "time" | "sandbox" | "event"> = {},
): Promise<void> {
  const file = eventsPath(paths, sandbox);
  await mkdir(dirname(file), { recursive: true, mode: 0o750 });
  const entry: AuditEvent = { time: new Date().toISOString(), sandbox, event, ...extra };
  await appendFile(file, `${JSON.stringify(entry)}\n`, { mode: 0o640 });
}

/**
 * The sandbox's events, oldest first; lines that are not events are skipped: not JSON, or JSON of
 * another shape (a torn line, a hand's edit), which would otherwise reach `audit-log` and its
 * --json as an event with fields missing.
 */
export async function readEvents(paths: RuntimePaths, sandbox: string): Promise<AuditEvent[]> {
  const text = await readFile(eventsPath(paths, sandbox), "utf8").catch(() => "");
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .flatMap((line) => {
      try {
        const event: unknown = JSON.parse(line);
        return isAuditEvent(event) ? [event] : [];
      } catch {
        return [];
      }
    });
}

/** An event as recordEvent writes it (checked by hand: forage-ctl's client side loads no schema library). */
function isAuditEvent(value: unknown): value is AuditEvent {
  if (typeof value !== "object" || value === null) return false;
  const event = value as Record<string, unknown>;
  return (
    typeof event.time === "string" &&
    typeof event.sandbox === "string" &&
    (auditEventKinds as readonly unknown[]).includes(event.event) &&
    (event.detail === undefined || typeof event.detail === "string") &&
    (event.exitCode === undefined || Number.isInteger(event.exitCode))
  );
}
