import { z } from "zod";
import { approvalsSchema } from "./approvals.js";
import { identitySchema } from "./identity.js";
import { proxyUrlSchema } from "./proxy-url.js";
import { auditLogBytes, rateRequests, rateTokens, rateWindow, upstreamOrigin } from "./shared-limits.js";
import { absolutePath, interfaceName, secretName, sshPublicKey, templateName, unixUserName } from "./names.js";
import { templateSchema, type Template } from "./template.js";

/** Seconds between the daemon monitor's health checks when monitor.interval is not written. */
export const monitorIntervalDefault = 60;

const monitorSchema = z
  .strictObject({
    enable: z.boolean().default(false).describe("Run the health monitor."),
    // No zod default: an interval written beside enable: false is refused, so whether it was written must show (the model defaults it).
    interval: z
      .number()
      .int()
      .min(5, { error: "must be at least 5 seconds" })
      .max(86_400)
      .optional()
      .describe(`Seconds between health checks (needs enable). Default: ${monitorIntervalDefault}.`),
    autoRestart: z.boolean().default(false).describe("Restart sandboxes found unhealthy (needs enable)."),
  })
  // The daemon's monitor is what restarts and what keeps the interval; without it both would be read by nothing.
  .refine((monitor) => monitor.enable || !monitor.autoRestart, {
    path: ["autoRestart"],
    error:
      "autoRestart restarts the sandboxes the daemon's monitor finds unhealthy, and monitor.enable is off: set monitor.enable: true, or remove autoRestart",
  })
  .refine((monitor) => monitor.enable || monitor.interval === undefined, {
    path: ["interval"],
    error:
      "interval is how often the daemon's monitor checks the sandboxes, and monitor.enable is off: set monitor.enable: true, or remove interval",
  })
  .describe("Sandbox health monitor.");

/*
 * The proxy's settings carry no zod defaults: written where no agent goes by the proxy they have
 * no effect (effectNotes says so), so whether they were written must show. The model applies these.
 */
export const proxyDefaults = {
  port: 8080,
  rateLimit: { requests: 60, window: "1m" },
  auditLogMaxBytes: 50 * 1024 * 1024,
} as const;

const proxySchema = z
  .strictObject({
    enable: z
      .boolean()
      .optional()
      .describe(
        'Whether the API proxy runs. Default: exactly when an agent goes by it (auth "proxy" or "placeholder", or an oauth login), the only time it has anyone to serve. false is refused while an agent does (it would have no way to its API); true without one has no effect (a note says so).',
      ),
    port: z
      .number()
      .int()
      .min(1)
      .max(65535)
      .optional()
      .describe(`Port the proxy listens on, on each sandbox's host-side address. Default: ${proxyDefaults.port}.`),
    url: proxyUrlSchema
      .optional()
      .describe(
        "The reference's `proxyUrl`, accepted so its configs load, with no effect (a note says so): the built-in proxy is always reached on each sandbox's own link, so this cannot be combined with auth proxy or placeholder.",
      ),
    rateLimit: z
      .strictObject({
        requests: rateRequests
          .default(proxyDefaults.rateLimit.requests)
          .describe("Requests allowed per window per sandbox."),
        window: rateWindow.default(proxyDefaults.rateLimit.window).describe("Sliding window length."),
        tokens: rateTokens
          .optional()
          .describe(
            "Model tokens (input + output, as the API reports them) allowed per window per sandbox. Default: no token limit.",
          ),
      })
      .optional()
      .describe(
        "Per-sandbox rate limits (sliding window); over one the proxy answers 429 naming it. Default: 60 requests a minute, no token limit.",
      ),
    auditLog: absolutePath.optional().describe("JSONL audit log path; default: <stateDir>/proxy-audit.jsonl."),
    auditLogMaxBytes: auditLogBytes
      .optional()
      .describe("Size at which the audit log is rotated (three old files are kept). Default: 50 MiB."),
    caFile: absolutePath
      .optional()
      .describe("PEM file of extra certificate authorities the proxy trusts for upstreams (e.g. a company gateway's)."),
    allowUpstreams: z
      .array(upstreamOrigin)
      .max(16)
      .optional()
      .describe(
        "Upstream origins allowed even though they are on loopback, link-local or private addresses (test servers, a local gateway). Others must resolve to public addresses. Default: none.",
      ),
  })
  .describe(
    "Host-side API proxy. It runs only when an agent goes by it; its settings written without one have no effect (a note says so).",
  );

const addressingSchema = z
  .strictObject({
    base: z
      .string()
      .regex(/^(25[0-5]|2[0-4]\d|1?\d?\d)\.(25[0-5]|2[0-4]\d|1?\d?\d)$/, {
        error: 'must be the first two octets of an IPv4 /16, e.g. "10.100"',
      })
      .default("10.100")
      .describe("Sandbox N gets <base>.N.1 (host side) and <base>.N.2 (sandbox)."),
    upstreamResolver: z
      .string()
      .optional()
      .describe("DNS server the restricted-mode filter forwards to; default: the host's /etc/resolv.conf."),
    admitPrivate: z
      .array(
        z.string().regex(/^(\d{1,3}(\.\d{1,3}){3}\/\d{1,2}|[0-9a-f:]+\/\d{1,3})$/, {
          error: 'must be a CIDR range, e.g. "10.20.0.0/16" or "fd12:3456::/48"',
        }),
      )
      .max(64)
      .default([])
      .describe(
        "Private ranges (RFC 1918, 100.64/10, fc00::/7) an allowed name may resolve to in restricted mode, e.g. your company's git server. Others are refused, so a name someone points at your LAN is not a way in. Loopback, link-local (cloud metadata), multicast, this host and the sandboxes are never admitted. Default: none.",
      ),
  })
  .describe("Sandbox addressing.");

/** The whole Forage configuration: host settings and sandbox templates. */
export const configSchema = z
  .strictObject({
    $schema: z.string().optional().describe("JSON Schema reference for editors; ignored."),
    user: unixUserName.describe("Host user whose UID/GID the agent user gets and who may use forage-ctl."),
    authorizedKeys: z
      .array(sshPublicKey)
      .max(64)
      .default([])
      .describe("SSH public keys allowed to log in to sandboxes."),
    secrets: z
      .record(secretName, absolutePath.describe("Host path of the secret file (e.g. from sops-nix or agenix)."))
      .default({})
      .describe("Secrets by name → host file path. Only paths are read by the generator, never contents."),
    templates: z
      .record(templateName, templateSchema)
      .refine((t) => Object.keys(t).length > 0, { error: "define at least one template" })
      .refine((t) => Object.keys(t).length <= 128, { error: "at most 128 templates" })
      .describe("Sandbox templates by name."),
    stateDir: absolutePath.default("/var/lib/forage").describe("Where sandbox state and workspaces live."),
    externalInterface: interfaceName
      .optional()
      .describe('Host interface sandboxes in "full" mode are NATed through, e.g. "eth0".'),
    containerUsername: unixUserName.default("agent").describe("Name of the agent user inside sandboxes."),
    workspacePath: absolutePath.default("/workspace").describe("Where the workspace is mounted inside sandboxes."),
    agentIdentity: identitySchema.optional(),
    monitor: monitorSchema.default({ enable: false, autoRestart: false }),
    proxyUrl: proxyUrlSchema
      .optional()
      // The reference's spelling, rewritten into proxy.url by adoptReferenceSpellings.
      .meta({
        nixType: "omit",
        deprecated: true,
        description:
          "The reference's spelling of proxy.url, accepted so its configs load; like proxy.url it has no effect (a note says so): remove it.",
      }),
    proxy: proxySchema.default({}),
    network: addressingSchema.default({ base: "10.100", admitPrivate: [] }),
    approvals: approvalsSchema.default({ deadline: 30 }),
    stateVersion: z
      .string()
      .regex(/^\d\d\.\d\d$/, { error: 'must be a NixOS release such as "25.05"' })
      .default("25.05")
      .describe("system.stateVersion of sandbox containers."),
  })
  // Both spellings at once would leave one of them silently unused.
  .refine((config) => config.proxyUrl === undefined || config.proxy.url === undefined, {
    path: ["proxyUrl"],
    params: { atKey: true },
    error: "proxyUrl (the reference's spelling) and proxy.url both set the proxy's URL: keep one, in proxy.url",
  })
  .describe("Forage: sandboxes for AI coding agents.");

export type ConfigInput = z.input<typeof configSchema>;
/** A config as written: the reference's spellings (proxyUrl, templates' allowedHosts) may still be in it. */
export type WrittenConfig = z.output<typeof configSchema>;
/** A config in Forage's own spelling only (see adoptReferenceSpellings): what everything after loading reads. */
export type Config = Omit<WrittenConfig, "proxyUrl" | "templates"> & {
  proxyUrl?: never;
  templates: Record<string, Template>;
};
