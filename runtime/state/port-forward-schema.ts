import { z } from "zod";
import { portLimits } from "./port-spec.js";

const port = z.number().int().min(1).max(portLimits.highestPort);

/** A forward as requests and the metadata carry it (limits from port-spec.ts, as the CLI checks them). */
export const portForwardSchema = z.strictObject({
  hostPort: port
    .min(portLimits.lowestHostPort, {
      error: `host ports below ${portLimits.lowestHostPort} are privileged: choose ${portLimits.lowestHostPort}-${portLimits.highestPort}`,
    })
    .describe("the port on the host's 127.0.0.1"),
  port: port.describe("the port in the sandbox, at its own address"),
});

/** A sandbox's forwards: at most one per host port. */
export const portForwardsSchema = z
  .array(portForwardSchema)
  .max(portLimits.maxPerSandbox)
  .refine((forwards) => new Set(forwards.map((forward) => forward.hostPort)).size === forwards.length, {
    error: "a host port is forwarded twice",
  });

/** What `forage-ctl port` asks: open a forward, close the one on a host port (of that sandbox port, if given), or nothing (list). */
export const portChangeSchema = z
  .discriminatedUnion("kind", [
    z.strictObject({ kind: z.literal("add"), forward: portForwardSchema }),
    z.strictObject({
      kind: z.literal("remove"),
      hostPort: port.describe("the host port to close"),
      port: port.nullable().describe("the sandbox port it must forward to, or null for any"),
    }),
  ])
  .nullable()
  .describe("the change to make first, or null to only list the forwards");
