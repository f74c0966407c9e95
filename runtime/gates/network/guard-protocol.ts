import type { GuardServices } from "../../../generator/policy/network/host-table.js";
import type { GuardSpec } from "./guard-spec.js";
import type { ForwardState } from "./port-forwarder.js";
import { forwardStates } from "./forward-states.js";

/**
 * What forage-ctl asks the guard host (guard-host.ts) over its socket, one JSON line each way.
 * The socket is root's alone (mode 0600 in a root-owned directory): a request is trusted as
 * root's, and still checked for shape.
 */
export type GuardRequest =
  | { op: "add"; spec: GuardSpec }
  | { op: "reload"; stateDir: string; sandbox: string }
  | { op: "remove"; stateDir: string; sandbox: string }
  | { op: "has"; stateDir: string; sandbox: string }
  | { op: "record"; stateDir: string; sandbox: string }
  | { op: "ports"; stateDir: string; sandbox: string };

/** The host's answer: its pid, and the sandbox's ports for `add` (its forwards for `ports`), or an error. */
export type GuardAnswer =
  | { ok: true; pid: number; services?: GuardServices; has?: boolean; forwards?: ForwardState[] }
  | { ok: false; error: string };

/** The key of a sandbox in the host: two state directories may each have a sandbox of one name. */
export function guardKey(stateDir: string, sandbox: string): string {
  return `${stateDir}\0${sandbox}`;
}

/** The host's answer line, checked for shape; throws what is wrong with it. */
export function guardAnswer(raw: unknown): GuardAnswer {
  const fields = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {};
  if (fields.ok === false && typeof fields.error === "string") return { ok: false, error: fields.error };
  if (fields.ok !== true || typeof fields.pid !== "number" || !Number.isInteger(fields.pid))
    throw new Error("the guard host's answer is not one (another version running? it exits once it has no sandbox)");
  const services = fields.services === undefined ? undefined : portsOf(fields.services);
  const forwards = fields.forwards === undefined ? undefined : forwardStates(fields.forwards);
  return {
    ok: true,
    pid: fields.pid,
    ...(services === undefined ? {} : { services }),
    ...(typeof fields.has === "boolean" ? { has: fields.has } : {}),
    ...(forwards === undefined ? {} : { forwards }),
  };
}

function portsOf(raw: unknown): GuardServices {
  const { dnsPort, tlsPort, httpPort } =
    typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {};
  const port = (value: unknown): number => {
    if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > 65535)
      throw new Error("the guard host answered a port that is none");
    return value;
  };
  return { dnsPort: port(dnsPort), tlsPort: port(tlsPort), httpPort: port(httpPort) };
}
