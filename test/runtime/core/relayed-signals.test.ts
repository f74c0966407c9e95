import { describe, expect, it } from "vitest";
import { isRelayedSignal } from "../../../runtime/core/relayed-signals.js";

describe("isRelayedSignal", () => {
  it("takes the signals a caller may pass on, and nothing a client could slip in beside them", () => {
    for (const signal of ["SIGHUP", "SIGINT", "SIGQUIT", "SIGTERM", "SIGUSR1", "SIGUSR2"])
      expect(isRelayedSignal(signal)).toBe(true);
    for (const other of ["SIGKILL", "SIGSTOP", "sigint", "INT", 2, null, undefined, {}])
      expect(isRelayedSignal(other)).toBe(false);
  });
});
