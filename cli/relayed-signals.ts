import { relayedSignals, type RelayedSignal } from "../runtime/core/relayed-signals.js";

/**
 * Passes the signals forage-ctl gets while a command runs (C-c, C-\, a hang-up, a caller's
 * TERM, USR1/USR2) on to the command instead of ending forage-ctl, which then returns the
 * command's own exit status. The command runs in a process group of its own (or in the daemon),
 * so each reaches it once, through here. `restore` puts the default handling back.
 */
export function relayThisProcessSignals(): {
  onSignal(listener: (signal: RelayedSignal) => void): void;
  restore(): void;
} {
  const listeners: ((signal: RelayedSignal) => void)[] = [];
  const handlers = relayedSignals.map((signal) => {
    const handler = (): void => {
      for (const listener of listeners) listener(signal);
    };
    process.on(signal, handler);
    return { signal, handler };
  });
  return {
    onSignal: (listener) => void listeners.push(listener),
    restore: () => {
      for (const { signal, handler } of handlers) process.off(signal, handler);
    },
  };
}
