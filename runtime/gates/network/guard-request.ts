import { z } from "zod";
import { sandboxNamePattern } from "../../core/names.js";
import type { RuntimePaths } from "../../core/paths.js";
import type { GuardRequest } from "./guard-protocol.js";
import type { GuardSpec } from "./guard-spec.js";
import { issueList } from "../../../generator/lib/issue-list.js";

const absolute = z.string().startsWith("/").max(4096);
const sandbox = z.string().regex(sandboxNamePattern);

/** The paths a sandbox's guard works with: every one absolute (they come from root, and are still checked). */
const paths: z.ZodType<RuntimePaths> = z.strictObject({
  stateDir: absolute,
  sandboxesDir: absolute,
  loginsDir: absolute,
  workspacesDir: absolute,
  rootsDir: absolute,
  networkDir: absolute,
  pushGateDir: absolute,
  seccompDir: absolute,
  gvisorDir: absolute,
  sshAgentDir: absolute,
  contextDir: absolute,
  secretsDir: absolute,
  proxyStatusFile: absolute,
  locksDir: absolute,
  guardSocket: absolute,
  systemsDir: absolute,
  generatedDir: absolute,
  modulesDir: absolute,
});

const spec: z.ZodType<GuardSpec> = z.strictObject({
  sandbox,
  slot: z.number().int().min(1).max(254),
  paths,
  base: z.string().regex(/^\d{1,3}\.\d{1,3}$/),
  upstream: z.string().max(255).nullable(),
  namespace: absolute.nullable(),
  admitPrivate: z.array(z.string().max(64)).max(256),
});

const request: z.ZodType<GuardRequest> = z.discriminatedUnion("op", [
  z.strictObject({ op: z.literal("add"), spec }),
  z.strictObject({ op: z.literal("reload"), stateDir: absolute, sandbox }),
  z.strictObject({ op: z.literal("remove"), stateDir: absolute, sandbox }),
  z.strictObject({ op: z.literal("has"), stateDir: absolute, sandbox }),
  z.strictObject({ op: z.literal("record"), stateDir: absolute, sandbox }),
  z.strictObject({ op: z.literal("ports"), stateDir: absolute, sandbox }),
]);

/** A request to the guard host, checked; throws what is wrong with one that does not fit. */
export function guardRequest(raw: unknown): GuardRequest {
  const parsed = request.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw new Error(`invalid guard request: ${issueList(parsed.error.issues)}`);
}
