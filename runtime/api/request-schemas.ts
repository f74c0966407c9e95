import { z } from "zod";
import { agentName, templateName } from "../../generator/config/schema/names.js";
import { callerAgentSocket, clientHostPath as hostPath } from "../core/client-fields.js";
import { upOptionFields } from "../sandbox/up-options.js";
import { networkChangeSchema } from "../sandbox/network-change.js";
import { invalidSandboxName, sandboxNamePattern } from "../core/names.js";
import { snapshotNamePattern } from "../workspaces/snapshots.js";
import { portChangeSchema } from "../state/port-forward-schema.js";

/*
 * What the calls accept; call-requests.ts says which call takes which. The CLI builds
 * exactly these objects, the daemon parses what a client sends with them (everything a client
 * sends is untrusted), and the in-process implementation takes the parsed result. Optional
 * fields are exactOptional: JSON has no undefined, so neither has the request type.
 */

// Said as in-process commands say it (the CLI hands root's commands to the daemon too).
const name = z
  .string()
  .regex(sandboxNamePattern, { error: (issue) => invalidSandboxName(issue.input) })
  .describe("the sandbox");
const grace = z.number().int().min(0).max(3600).describe("seconds before processes are killed");
export const upRequest = z.strictObject({
  name,
  template: templateName.describe("the template to create it from"),
  workspace: hostPath.exactOptional().describe("-w DIR: a directory bound as is"),
  repo: hostPath
    .exactOptional()
    .describe("-r PATH: the default repository (a jj workspace or git worktree of it; as is with direct)"),
  direct: z.boolean().exactOptional().describe("--direct: mount the repository as is"),
  repos: z
    .record(templateName, hostPath)
    .exactOptional()
    .describe("-r NAME=PATH: repositories the template's mounts name"),
  gitUser: z
    .string()
    .max(128)
    .regex(/^[^\n\r<>]+$/)
    .exactOptional()
    .describe("author name of commits made in the sandbox"),
  gitEmail: z
    .string()
    .max(254)
    .regex(/^[^\s<>@]+@[^\s<>@]+$/)
    .exactOptional()
    .describe("author e-mail of commits made in the sandbox"),
  sshKeyPath: hostPath
    .exactOptional()
    .describe("host path of the agent's SSH private key (must belong to the configured user)"),
  ...upOptionFields,
  timings: z.boolean().exactOptional().describe("time the phases of this up and return them (--timings)"),
});

export const execRequest = z.strictObject({
  name,
  command: z.array(z.string().max(65536)).min(1).max(4096).describe("argv run in the sandbox"),
  asRoot: z.boolean().describe("as root instead of the agent (refused through the daemon)"),
});

const snapshotName = z.string().regex(snapshotNamePattern);
const snapshotAction = z
  .discriminatedUnion("kind", [
    z.strictObject({ kind: z.literal("create"), snapshot: snapshotName }),
    z.strictObject({ kind: z.literal("list") }),
    z.strictObject({ kind: z.literal("restore"), snapshot: snapshotName }),
  ])
  .describe("create (returns it), list, or restore a snapshot");

const networkChange = networkChangeSchema
  .nullable()
  .describe("the change to apply first, or null to only show the network");

/** A call about one sandbox, and nothing else (status, start, reset, auditLog, denials). */
export const sandboxRequest = z.strictObject({ name });
/** Starting a sandbox again (start, reset): which, and the caller's SSH agent for its relayed keys. */
export const startRequest = z.strictObject({ name, sshAuthSock: callerAgentSocket });
/** Stopping a sandbox (stop, down): which, and how long its processes get. */
export const stopRequest = z.strictObject({ name, grace });
/** Checkpointing a sandbox: which, and how long to wait for its connections to end. */
export const checkpointRequest = z.strictObject({
  name,
  wait: z.number().int().min(0).max(3600).describe("seconds to wait for the sandbox's TCP connections to end"),
});
export const logsRequest = z.strictObject({
  name,
  lines: z.number().int().min(1).max(100_000).describe("lines per window"),
});
export const gcRequest = z.strictObject({ force: z.boolean().describe("remove what is found (else only list it)") });
export const snapshotRequest = z.strictObject({ name, action: snapshotAction });
export const networkRequest = z.strictObject({ name, change: networkChange });
/** `auth set`: the agent, and what the user piped in (a token or the agent's login file; never logged). */
export const authSetRequest = z.strictObject({
  agent: agentName.describe("the agent whose login it is"),
  text: z.string().max(65536).describe("the token or login file, as read from stdin"),
});
export const authRemoveRequest = z.strictObject({ agent: agentName.describe("the agent whose login to remove") });
export const portRequest = z.strictObject({ name, change: portChangeSchema });
/** A call that takes nothing (list, and the daemon's own calls). */
export const noRequest = z.strictObject({});
