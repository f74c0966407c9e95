import { z } from "zod";
import { sshPublicKey } from "../../generator/config/schema/names.js";
import { sandboxNamePattern } from "../core/names.js";
import { snapshotNamePattern } from "../workspaces/snapshots.js";
import { allowEntry } from "../../generator/config/schema/allow-entry.js";
import { networkModes } from "../../generator/config/network-modes.js";
import { denyEntry } from "../../generator/policy/network/policy-schema.js";

/**
 * What each daemon operation accepts. Everything a client sends is untrusted: it is parsed here
 * before any of it reaches the runtime.
 */
const name = z.string().regex(sandboxNamePattern);
const grace = z.number().int().min(0).max(3600);
/** A host path from a client: absolute, and no control characters (they end up in flags and logs). */
const hostPath = z
  .string()
  .startsWith("/")
  .max(4096)
  .regex(/^[^\x00-\x1f\x7f]*$/, { error: "must not contain control characters" });
/** A relayed terminal's size; anything beyond a few thousand cells is not a screen. */
export const terminalSize = z.strictObject({ rows: z.number().int().min(1).max(1000), cols: z.number().int().min(1).max(1000) });

export const requestSchemas = {
  up: z.strictObject({
    name,
    template: z.string().regex(/^[a-z][a-z0-9-]{0,31}$/),
    workspace: hostPath.optional(),
    repo: hostPath.optional(),
    direct: z.boolean().optional(),
    repos: z.record(z.string().regex(/^[a-z][a-z0-9-]{0,31}$/), hostPath).optional(),
    gitUser: z
      .string()
      .max(128)
      .regex(/^[^\n\r<>]+$/)
      .optional(),
    gitEmail: z
      .string()
      .max(254)
      .regex(/^[^\s<>@]+@[^\s<>@]+$/)
      .optional(),
    sshKeyPath: hostPath.optional(),
    sshKeys: z.array(sshPublicKey).max(64).optional(),
    muxConfig: z.boolean().optional(),
    runtime: z
      .string()
      .regex(/^[a-z-]{1,32}$/)
      .optional(),
    timings: z.boolean().optional(),
  }),
  down: z.strictObject({ name, grace }),
  list: z.strictObject({}),
  status: z.strictObject({ name }),
  start: z.strictObject({ name }),
  stop: z.strictObject({ name, grace }),
  reset: z.strictObject({ name }),
  auditLog: z.strictObject({ name }),
  logs: z.strictObject({ name, lines: z.number().int().min(1).max(100_000) }),
  gc: z.strictObject({ force: z.boolean() }),
  exec: z.strictObject({
    name,
    command: z.array(z.string().max(65536)).min(1).max(4096),
    asRoot: z.boolean(),
    stdin: z.boolean(),
    terminal: z.strictObject({ size: terminalSize, term: z.string().regex(/^[A-Za-z0-9._+-]{1,64}$/) }).optional(),
  }),
  snapshot: z.strictObject({
    name,
    action: z.discriminatedUnion("kind", [
      z.strictObject({ kind: z.literal("create"), snapshot: z.string().regex(snapshotNamePattern) }),
      z.strictObject({ kind: z.literal("list") }),
      z.strictObject({ kind: z.literal("restore"), snapshot: z.string().regex(snapshotNamePattern) }),
    ]),
  }),
  network: z.strictObject({
    name,
    change: z
      .strictObject({
        mode: z.enum(networkModes).optional(),
        allow: z.array(allowEntry).max(512).optional(),
        deny: z.array(denyEntry).max(512).optional(),
        sni: z.boolean().optional(),
        reset: z.boolean().optional(),
      })
      .nullable(),
  }),
  denials: z.strictObject({ name }),
  proxyStatus: z.strictObject({}),
  /** Who is answering: the settings file it serves and its pid (see DaemonHello). */
  hello: z.strictObject({}),
  shutdown: z.strictObject({}),
} as const;

export type Op = keyof typeof requestSchemas;

export function isOp(op: string): op is Op {
  return Object.hasOwn(requestSchemas, op);
}
