import { z } from "zod";
import { invalidSandboxName, sandboxNamePattern } from "../../core/names.js";
import { approvalIdPattern } from "./approval-id.js";
import { maxApprovalDeadlineMs, maxApprovalForMs } from "./approval-queue.js";

/*
 * What the daemon's approval calls accept. An ask comes from root's own processes (the guard
 * host, the push gate, the SSH agent), but its subject is what a sandbox asked for: bounded here,
 * printed escaped by every answerer.
 */

const text = (max: number) => z.string().max(max);
const commit = z.string().regex(/^[0-9a-f]{4,64}$/, { error: "must be a commit hash (hex)" });

const address = z.union([z.ipv4(), z.ipv6()]);
const hostSubject = z.strictObject({
  name: text(253).min(1).describe("the name, lower-case, without the trailing dot"),
  port: z.number().int().min(1).max(65535).exactOptional().describe("the port it would be admitted on"),
  addresses: z
    .array(address)
    .max(64)
    .exactOptional()
    .describe("the addresses of the answer the request is for (absent: not looked up yet, nothing sent upstream)"),
  approved: z.array(address).max(1024).exactOptional().describe("with addresses: those approved for the name before"),
});
const pushSubject = z
  .strictObject({
    remote: text(256),
    url: text(4096),
    ref: text(1024).startsWith("refs/"),
    from: commit.nullable(),
    to: commit,
    commitCount: z.number().int().min(0),
    commits: z.array(text(1024)).max(10_000),
    omitted: z.strictObject({ after: z.number().int().min(0), count: z.number().int().min(1) }).exactOptional(),
    diffstat: text(256 * 1024),
  })
  // The count the human reads is the list's: every commit listed or counted as left out, once.
  .refine(
    (push) =>
      push.commitCount === push.commits.length + (push.omitted?.count ?? 0) &&
      (push.omitted?.after ?? 0) <= push.commits.length,
    {
      error: "commitCount must be the commits listed plus those omitted, and omitted.after within the list",
      path: ["commitCount"],
    },
  );
const signDestination = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("ssh-login"),
    user: text(256),
    // forage's fingerprint of the host key the data names: never free text.
    hostKey: z
      .string()
      .regex(/^SHA256:[A-Za-z0-9+/]{43}$/, { error: "must be a SHA256 fingerprint" })
      .exactOptional(),
  }),
  z.strictObject({ kind: z.literal("sshsig"), namespace: text(128), hash: text(32) }),
]);
const sshSignSubject = z.strictObject({
  fingerprint: text(128).min(1),
  comment: text(1024),
  destination: signDestination.exactOptional(),
});

/** The longest arguments an MCP call may carry and still be asked about (mcp-gate's call-judge.ts). */
export const maxShownArgumentsBytes = 64 * 1024;
/** The longest tool name an MCP call may be asked about with. */
export const maxShownToolLength = 256;
const mcpCallSubject = z.strictObject({
  server: text(64).min(1),
  tool: text(maxShownToolLength).min(1),
  arguments: text(maxShownArgumentsBytes),
});

const sandbox = z
  .string()
  .regex(sandboxNamePattern, { error: (issue) => invalidSandboxName(issue.input) })
  .describe("the sandbox whose request it is");
const deadlineMs = z
  .number()
  .int()
  .min(1)
  .max(maxApprovalDeadlineMs)
  .exactOptional()
  .describe("how long to wait for an answer (default: approvals.deadline)");

/** `approvalAsk`: an ApprovalAsk, as approval.ts describes it. */
export const approvalAskRequest = z.discriminatedUnion("kind", [
  z.strictObject({ sandbox, kind: z.literal("host"), subject: hostSubject, deadlineMs }),
  z.strictObject({ sandbox, kind: z.literal("push"), subject: pushSubject, deadlineMs }),
  z.strictObject({ sandbox, kind: z.literal("ssh-sign"), subject: sshSignSubject, deadlineMs }),
  z.strictObject({ sandbox, kind: z.literal("mcp-call"), subject: mcpCallSubject, deadlineMs }),
]);

const id = z
  .string()
  .regex(approvalIdPattern, { error: "must be a request id as forage-ctl approvals shows it (6 letters and digits)" })
  .describe("the request");

/** `approve`: the request, and how: once, always, or for a while (`for`, with forMs). */
export const approveRequest = z
  .strictObject({
    id,
    mode: z
      .enum(["once", "always", "for"])
      .describe("once: this request; always: the asker persists it; for: for forMs"),
    forMs: z
      .number()
      .int()
      .min(1000)
      .max(maxApprovalForMs)
      .exactOptional()
      .describe("with mode for: how long, in milliseconds"),
  })
  .refine((request) => (request.mode === "for") === (request.forMs !== undefined), {
    error: "forMs goes with mode for, and only with it",
    path: ["forMs"],
  });

/** `deny`: the request. */
export const denyRequest = z.strictObject({ id });
