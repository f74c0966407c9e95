import type { ForwardState } from "./port-forwarder.js";

/** The guard host's report of a sandbox's forwards, checked for shape (guard-protocol.ts); throws what is wrong. */
export function forwardStates(raw: unknown): ForwardState[] {
  if (!Array.isArray(raw)) throw new Error("the guard host answered forwards that are no list");
  return raw.map((each: unknown): ForwardState => {
    const { hostPort, port, open, error } =
      typeof each === "object" && each !== null ? (each as Record<string, unknown>) : {};
    const isPort = (value: unknown): value is number =>
      typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= 65535;
    if (
      !isPort(hostPort) ||
      !isPort(port) ||
      typeof open !== "boolean" ||
      !(error === null || typeof error === "string")
    )
      throw new Error("the guard host answered a forward that is none");
    return { hostPort, port, open, error };
  });
}
