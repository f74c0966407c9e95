import { z } from "zod";
import { networkModes } from "../../../generator/config/network-modes.js";

/** What the guard host says about a sandbox it could not serve or reload, in the sandbox's network directory (root's). */
export const guardLogName = "guard.log";

/** The guard's status file in the sandbox's network directory, rewritten whenever its tables are read for refusals (every second when busy, every 10 s when quiet) or its policy is reloaded. */
export const guardStatusFile = "guard.json";

const count = z.number().int().min(0);

/** What `forage-ctl network` shows of a running guard (`guard.json` in the sandbox's network dir). */
export const guardStatusSchema = z.object({
  pid: z.number().int().positive(),
  dnsPort: z.number().int().min(1).max(65535),
  startedAt: z.string(),
  mode: z.enum(networkModes),
  upstream: z.string(),
  queries: count,
  refusedNames: count,
  upstreamFailures: count,
  refusedPackets: count,
  /** Policy reloads done; `forage-ctl network` checks that a change took. */
  reloads: count,
  /** Names admitted for this run only when asked (ask mode: `once`, `for`); absent from guards before it existed. */
  admitted: z.array(z.string()).optional(),
  /** What each of them is admitted at: the port, and each address with the end of its approval (null: while the sandbox runs). */
  admissions: z
    .array(
      z.object({
        name: z.string(),
        port: z.number().int(),
        addresses: z.array(z.object({ address: z.string(), until: z.string().nullable() })),
      }),
    )
    .optional(),
});
export type GuardStatus = z.infer<typeof guardStatusSchema>;
