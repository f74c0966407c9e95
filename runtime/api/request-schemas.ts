import { z } from "zod";
import { agentName, sshPublicKey, templateName } from "../../generator/config/schema/names.js";
import { allowEntry } from "../../generator/config/schema/allow-entry.js";
import { networkModes } from "../../generator/config/network-modes.js";
import { invalidSandboxName, sandboxNamePattern } from "../core/names.js";
import { snapshotNamePattern } from "../workspaces/snapshots.js";
import { denyEntry } from "../../generator/policy/network/policy-schema.js";
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
/** A host path from a client: absolute, and no control characters (they end up in flags and logs). */
const hostPath = z
  .string()
  .startsWith("/")
  .max(4096)
  .regex(/^[^\x00-\x1f\x7f]*$/, { error: "must not contain control characters" });

/** The caller's SSH_AUTH_SOCK: a socket's path (sun_path holds 107 bytes). */
const agentSocket = hostPath
  .max(107)
  .exactOptional()
  .describe("the caller's SSH_AUTH_SOCK: keys named by fingerprint are relayed to the agent there, as the user");

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
  sshKeys: z
    .array(sshPublicKey)
    .max(64)
    .exactOptional()
    .describe("SSH public keys that may log in, besides the configured ones"),
  sshAgent: z
    .array(
      z
        .string()
        .max(4096)
        .regex(/^(SHA256:[A-Za-z0-9+/]{43}|\/[^\u0000]+)$/, {
          error: "must be an absolute key file path or a SHA256: fingerprint",
        }),
    )
    .min(1)
    .max(16)
    .exactOptional()
    .describe(
      "serve an SSH agent with these keys (files of the user's, or fingerprints in the user's own agent), asking for every signature; instead of the template's sshAgent",
    ),
  sshAuthSock: agentSocket,
  muxConfig: z.boolean().exactOptional().describe("mount the user's ~/.tmux.conf (default true)"),
  runtime: z
    .string()
    .regex(/^[a-z-]{1,32}$/)
    .exactOptional()
    .describe("the runtime to use (see forage-ctl runtime)"),
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

const networkChange = z
  .strictObject({
    mode: z.enum(networkModes).exactOptional().describe("the new mode"),
    allow: z.array(allowEntry).max(512).exactOptional().describe("entries added to the allowlist"),
    deny: z.array(denyEntry).max(512).exactOptional().describe("names added to the denylist"),
    sni: z.boolean().exactOptional().describe("check TLS SNI / HTTP Host against the allowlist (restricted mode)"),
    ask: z.boolean().exactOptional().describe("hold names not in the allowlist and ask the human (restricted mode)"),
    reset: z.boolean().exactOptional().describe("start again from the template's policy, then apply the rest"),
    learn: z.literal(true).exactOptional().describe("learn mode: full mode, recording every name the sandbox resolves"),
  })
  .nullable()
  .describe("the change to apply first, or null to only show the network");

/** A call about one sandbox, and nothing else (status, start, reset, auditLog, denials). */
export const sandboxRequest = z.strictObject({ name });
/** Starting a sandbox again (start, reset): which, and the caller's SSH agent for its relayed keys. */
export const startRequest = z.strictObject({ name, sshAuthSock: agentSocket });
/** Stopping a sandbox (stop, down): which, and how long its processes get. */
export const stopRequest = z.strictObject({ name, grace });
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
