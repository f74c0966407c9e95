import { UserError } from "../runtime/core/errors.js";
import { maxApprovalForMs } from "../runtime/gates/approvals/approval-queue.js";

const unitMs: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000 };

/**
 * `--for`'s DURATION in milliseconds: whole numbers with s, m or h, run together, e.g. `10m`,
 * `1h30m`, `90s`; at least a second, at most a day.
 */
export function parseApprovalDuration(text: string): number {
  if (!/^(\d{1,6}[smh])+$/.test(text))
    throw new UserError(`--for: "${text}" is not a duration: write e.g. 10m, 1h or 1h30m (s, m, h)`, "usage");
  let ms = 0;
  for (const [, count, unit] of text.matchAll(/(\d+)([smh])/g)) ms += Number(count) * (unitMs[unit ?? "s"] ?? 0);
  if (ms < 1000 || ms > maxApprovalForMs)
    throw new UserError(`--for: ${text} is out of range: from 1s to 24h`, "usage");
  return ms;
}
