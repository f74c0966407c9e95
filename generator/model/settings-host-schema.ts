import { z } from "zod";
import { proxyUrlSchema } from "../config/schema/proxy-url.js";
import { auditLogBytes, rateRequests, rateTokens, rateWindow, upstreamOrigin } from "../config/schema/shared-limits.js";
import { identitySchema } from "../config/schema/identity.js";
import { approvalCommand, approvalDeadline } from "../config/schema/approvals.js";
import { absolutePath, interfaceName, secretName, sshPublicKey, unixUserName } from "../config/schema/names.js";

/*
 * forage.json's `host`: HostModel as the generator resolved it, every default applied, so every
 * field is present (null where the model says "none"). Limits are the config schema's: a value the
 * config accepts must come back here, and the round-trip tests check that it does.
 */

const rateLimitSchema = z
  .strictObject({
    requests: rateRequests.describe("Requests allowed per window per sandbox."),
    window: rateWindow.describe("Sliding window length."),
    tokens: rateTokens.nullable().describe("Model tokens allowed per window per sandbox; null: no token limit."),
  })
  .describe("Per-sandbox rate limits of the API proxy.");

const proxySchema = z
  .strictObject({
    enable: z
      .boolean()
      .describe(
        'Whether the API proxy runs: true exactly when an agent uses auth "proxy" or "placeholder" (the daemon decides from the agents themselves).',
      ),
    port: z
      .number()
      .int()
      .min(1)
      .max(65535)
      .describe("Port the proxy listens on, on each sandbox's host-side address."),
    url: proxyUrlSchema.nullable().describe("The reference's proxyUrl, or null."),
    rateLimit: rateLimitSchema,
    auditLog: absolutePath
      .nullable()
      .describe("JSONL audit log path; null: proxy-audit.jsonl in the state directory in use."),
    auditLogMaxBytes: auditLogBytes.describe("Size at which the audit log is rotated."),
    caFile: absolutePath
      .nullable()
      .describe("PEM file of extra certificate authorities the proxy trusts for upstreams, or null."),
    allowUpstreams: z
      .array(upstreamOrigin)
      .max(16)
      .describe("https origins allowed although they are on loopback, link-local or private addresses."),
  })
  .describe("Host-side API proxy.");

const networkSchema = z
  .strictObject({
    base: z
      .string()
      .regex(/^(25[0-5]|2[0-4]\d|1?\d?\d)\.(25[0-5]|2[0-4]\d|1?\d?\d)$/, {
        error: 'must be the first two octets of an IPv4 /16, e.g. "10.100"',
      })
      .describe("Sandbox N gets <base>.N.1 (host side) and <base>.N.2 (sandbox)."),
    upstreamResolver: z
      .string()
      .nullable()
      .describe("DNS server the restricted-mode filter forwards to; null: the host's /etc/resolv.conf."),
    admitPrivate: z
      .array(
        z.string().regex(/^(\d{1,3}(\.\d{1,3}){3}\/\d{1,2}|[0-9a-f:]+\/\d{1,3})$/, {
          error: 'must be a CIDR range, e.g. "10.20.0.0/16" or "fd12:3456::/48"',
        }),
      )
      .max(64)
      .describe("Private ranges an allowed name may resolve to in restricted mode."),
  })
  .describe("Sandbox addressing and name resolution.");

/** The host settings every sandbox command and the daemon read. */
export const settingsHostSchema = z
  .strictObject({
    user: unixUserName.describe("Host user whose UID/GID the agent user gets and who may use forage-ctl."),
    authorizedKeys: z.array(sshPublicKey).max(64).describe("SSH public keys allowed to log in to sandboxes."),
    secrets: z.record(secretName, absolutePath).describe("Secrets by name → host file path (never their contents)."),
    stateDir: absolutePath.describe("Where sandbox state and workspaces live."),
    externalInterface: interfaceName
      .nullable()
      .describe('Host interface sandboxes in "full" mode are NATed through, or null.'),
    containerUsername: unixUserName.describe("Name of the agent user inside sandboxes."),
    workspacePath: absolutePath.describe("Where the workspace is mounted inside sandboxes."),
    agentIdentity: identitySchema,
    monitor: z
      .strictObject({
        enable: z.boolean().describe("Run the health monitor."),
        interval: z.number().int().min(5).max(86_400).describe("Seconds between health checks."),
        autoRestart: z.boolean().describe("Restart sandboxes found unhealthy."),
      })
      .describe("Sandbox health monitor."),
    proxy: proxySchema,
    network: networkSchema,
    approvals: z
      .strictObject({
        deadline: approvalDeadline.describe("Seconds a request waits for an answer before it is denied."),
        notify: approvalCommand
          .nullable()
          .describe("The command told of each new request (argv, the request as JSON on stdin), or null."),
      })
      .describe("The approvals queue."),
    stateVersion: z
      .string()
      .regex(/^\d\d\.\d\d$/, { error: 'must be a NixOS release such as "25.05"' })
      .describe("system.stateVersion of sandbox containers."),
    secretsMountPath: absolutePath.describe("Where secrets appear inside every sandbox."),
  })
  .describe("Host settings, every default applied.");
