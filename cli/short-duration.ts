/**
 * A span as the approvals listings show it, to the unit a human reads at a glance: seconds up to
 * two minutes, minutes up to two hours, then hours. Negative spans read as 0s.
 *
 * @example shortDuration(42_000) // → "42s"; shortDuration(600_000) → "10m"; shortDuration(10_800_000) → "3h"
 */
export function shortDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 120 ? `${s}s` : s < 7200 ? `${Math.round(s / 60)}m` : `${Math.round(s / 3600)}h`;
}
