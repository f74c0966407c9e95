import type { NetworkPolicy } from "../../generator/policy/network/policy-schema.js";

/** What the guard host says about a sandbox it could not serve or reload, in the sandbox's network directory (root's). */
export const guardLogName = "guard.log";

/** The guard's status file in the sandbox's network directory, rewritten whenever its tables are read for refusals (every second when busy, every 10 s when quiet) or its policy is reloaded. */
export const guardStatusFile = "guard.json";

/** What `forage-ctl network` shows of a running guard (`guard.json` in the sandbox's network dir). */
export interface GuardStatus {
  pid: number;
  dnsPort: number;
  startedAt: string;
  mode: NetworkPolicy["mode"];
  upstream: string;
  queries: number;
  refusedNames: number;
  upstreamFailures: number;
  refusedPackets: number;
  /** Policy reloads done; `forage-ctl network` checks that a change took. */
  reloads: number;
  /** Names admitted for this run only when asked (ask mode: `once`, `for`); absent from guards before it existed. */
  admitted?: string[];
  /** What each of them is admitted at: the port, and each address with the end of its approval (null: while the sandbox runs). */
  admissions?: { name: string; port: number; addresses: { address: string; until: string | null }[] }[];
}
