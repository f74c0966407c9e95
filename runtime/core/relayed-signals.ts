/**
 * The signals a caller passes on to its command (forage-enter passes them on inside): what a
 * terminal sends (C-c, C-\, a hang-up), a caller's TERM, and the two left to programs.
 */
export const relayedSignals = ["SIGHUP", "SIGINT", "SIGQUIT", "SIGTERM", "SIGUSR1", "SIGUSR2"] as const;
export type RelayedSignal = (typeof relayedSignals)[number];

/** True for the name of a signal a caller may pass on (a client's message is untrusted). */
export function isRelayedSignal(value: unknown): value is RelayedSignal {
  return typeof value === "string" && (relayedSignals as readonly string[]).includes(value);
}
