import { mcpServerNamePattern } from "../config/schema/mcp.js";
import { z } from "zod";
import { skillName } from "../config/schema/agent-context.js";
import { networkModes } from "../config/network-modes.js";
import { resolvedShape } from "../config/schema/defaulted-settings.js";
import { templateSettings } from "../config/schema/template-settings.js";
import { allowEntry } from "../config/schema/allow-entry.js";
import { identitySchema } from "../config/schema/identity.js";
import {
  absolutePath,
  agentName,
  hostPath,
  packageRef,
  templateName,
  templateNamePattern,
  vcsName,
} from "../config/schema/names.js";
import { protectedPaths } from "../config/schema/protected-paths.js";
import { proxyMethods } from "../config/schema/proxy-filter.js";
import { allowableNames } from "../config/schema/seccomp.js";
import { sizePattern } from "../config/schema/size-pattern.js";
import { cpuQuota, proxyPathPrefix, proxyRequestBytes } from "../config/schema/shared-limits.js";
import { tmuxWindowSchema } from "../config/schema/tmux-window.js";
import { parseAllowEntry } from "./allow-rule.js";
import { settingsAgentSchema } from "./settings-agent-schema.js";
import { keysAreNames } from "./settings-keys.js";

/*
 * forage.json's templates: a template as the generator resolved it (defaults applied, `extends`
 * flattened), agents filed by name and packages as dotted attribute paths. TemplateModel's type is
 * inferred from this schema (model.ts). The settings that are one value with a default come from
 * their one description (config/schema/template-settings.ts); the rest are spelled here. Limits
 * are the config schema's, widened only where the model derives a value (a list grown by the
 * beads package, one tmux window per agent).
 */
/** An allowlist entry with its parts, which must be the parts of the entry (no second opinion on it). */
const allowRuleSchema = z
  .strictObject({
    entry: allowEntry.describe('As written, e.g. "*.github.com:443".'),
    host: z.string().describe('The name without "*." and port, e.g. "github.com".'),
    wildcard: z.boolean().describe('True for "*.suffix": every name below host, not host itself.'),
    port: z.number().int().min(1).max(65535).nullable().describe("The entry's port, or null for any."),
  })
  .refine(
    (rule) => {
      const parts = parseAllowEntry(rule.entry);
      return parts.host === rule.host && parts.wildcard === rule.wildcard && parts.port === rule.port;
    },
    { error: "host, wildcard and port must be the parts of entry" },
  );

const mountSchema = z
  .strictObject({
    name: z
      .string()
      .regex(templateNamePattern, { error: "mount names must be 1-32 characters of a-z, 0-9 and '-'" })
      .describe("The mount's name."),
    containerPath: absolutePath.describe("Where the mount appears in the sandbox."),
    hostPath: hostPath.nullable().describe("A host directory bound as is (direct mode), or null."),
    // useBeads' repo is any string in the config (a mount's is a --repo name or an absolute path).
    repo: z.string().nullable().describe("Repository: a --repo name or an absolute path; null: the --repo repository."),
    mode: z
      .enum(["jj", "git-worktree", "direct"])
      .nullable()
      .describe("How the mount is made; null: jj if the repository has .jj, else git-worktree."),
    branch: vcsName.nullable().describe("Branch or bookmark checked out in this mount, or null."),
    readOnly: z.boolean().describe("Mount read-only."),
  })
  .describe("A composable workspace mount (the beads mount included).");

const resourceLimitsSchema = z
  .strictObject({
    cpuQuota: cpuQuota.nullable().describe("CPU quota as systemd CPUQuota=, or null."),
    memoryMax: z
      .string()
      .regex(sizePattern, { error: 'must be bytes with an optional K/M/G/T suffix, e.g. "4G"' })
      .nullable()
      .describe("MemoryMax=; null: unlimited."),
    tasksMax: z.number().int().min(16).max(1_000_000).nullable().describe("TasksMax=; null: unlimited."),
  })
  .describe("Resource limits of the whole sandbox.");

const proxyFilterSchema = z
  .strictObject({
    methods: z.array(z.enum(proxyMethods)).min(1).max(proxyMethods.length).describe("HTTP methods forwarded, sorted."),
    pathPrefixes: z.array(proxyPathPrefix).min(1).max(64).describe("Upstream paths forwarded, by prefix, sorted."),
    maxRequestBytes: proxyRequestBytes.describe("Largest request body forwarded."),
  })
  .describe("Which requests the API proxy forwards for this template's sandboxes.");

/** One resolved template, as forage.json holds it. */
export const settingsTemplateSchema = z
  .strictObject({
    name: templateName.describe("The template's name; the key it is filed under."),
    ...resolvedShape(templateSettings),
    agents: z.record(agentName, settingsAgentSchema).superRefine(keysAreNames).describe("Agents by name."),
    // 256 extraPackages and the beads package.
    extraPackages: z.array(packageRef).max(257).describe("Extra nixpkgs attribute paths, dotted, de-duplicated."),
    network: z
      .strictObject({
        mode: z
          .enum(networkModes)
          .describe("none: loopback only; restricted: only `allow`; full: NAT to the internet."),
        allow: z.array(allowRuleSchema).max(512).describe("Hosts reachable in restricted mode."),
        sni: z.boolean().describe("Also check TLS SNI / HTTP Host against `allow`."),
        // Absent from forage.json files written before it existed.
        ask: z.boolean().default(false).describe("Ask the human about names not in `allow` instead of refusing them."),
      })
      .describe("Network policy."),
    resourceLimits: resourceLimitsSchema,
    agentIdentity: identitySchema,
    mounts: z.array(mountSchema).describe("Extra workspaces, sorted by name."),
    unprotectedPaths: z
      .array(z.enum(protectedPaths))
      .max(protectedPaths.length)
      .describe("Protected workspace paths the agent may write, sorted."),
    workspaceMaxSize: z
      .string()
      .regex(sizePattern, { error: 'must be bytes with an optional K/M/G/T suffix, e.g. "10G"' })
      .nullable()
      .describe("Disk limit of each workspace, or null."),
    // One window per agent when the template names none, and agents are not counted.
    tmuxWindows: z.array(tmuxWindowSchema).describe("tmux windows to open."),
    sshAgent: z
      .strictObject({
        keys: z
          .array(z.string().min(1).max(4096))
          .min(1)
          .max(16)
          .describe("Private key files (\"~/\" is the user's home) or fingerprints of keys in the user's own agent."),
        confirm: z.boolean().describe("Ask for every signature."),
      })
      .nullable()
      .describe("The host-side SSH agent served into the sandbox, or null."),
    pushGate: z
      .strictObject({
        protectedBranches: z
          .array(z.string().min(1).max(255))
          .min(1)
          .max(64)
          .nullable()
          .describe("Branches refused outright, exactly these; null: the upstream's default branch, main and master."),
      })
      .nullable()
      // Absent from forage.json files written before it existed: no gate.
      .default(null)
      .describe("The push gate, or null."),
    mcp: z
      .strictObject({
        servers: z
          .array(
            z.strictObject({
              name: z
                .string()
                .regex(mcpServerNamePattern)
                .describe("Its name: the sandbox reaches it at /_mcp/<name>."),
              url: z
                .string()
                .min(1)
                .max(2048)
                .nullable()
                .describe("Its Streamable HTTP endpoint, or null (a stdio server)."),
              command: z
                .array(z.string().regex(/^[^\0\n\r]{1,4096}$/))
                .min(1)
                .max(64)
                .nullable()
                .describe("A stdio server's program and arguments, or null (a server reached by url)."),
              template: z.string().min(1).max(64).nullable().describe("A stdio server's sandbox's template, or null."),
              env: z
                .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/), z.string().min(1).max(64))
                .describe("A stdio server's environment variables, each the name of the secret it holds."),
              workspace: z
                .string()
                .min(1)
                .max(4096)
                .nullable()
                .describe("A stdio server's workspace (a host directory), or null: an empty one of its own."),
              secret: z.string().min(1).max(64).nullable().describe("The secret holding its token, or null."),
              header: z.string().min(1).max(64).describe("The header the token goes in."),
              value: z.string().min(1).max(256).describe('The header\'s value, "{key}" standing for the token.'),
              tools: z
                .strictObject({
                  allow: z.array(z.string().min(1).max(128)).max(256).describe("Tools called without asking."),
                  ask: z
                    .array(z.string().min(1).max(128))
                    .max(256)
                    .describe("Tools each call of which is asked about."),
                  deny: z.array(z.string().min(1).max(128)).max(256).describe("Tools refused and not listed."),
                })
                .describe("The tool policy: deny over ask over allow; unnamed tools asked about."),
            }),
          )
          .max(64)
          .describe("The servers, sorted by name."),
      })
      // Absent from forage.json files written before it existed: no servers.
      .default({ servers: [] })
      .describe("MCP servers reached through the MCP gate."),
    proxyFilter: proxyFilterSchema,
    seccomp: z
      .strictObject({
        allow: z
          .array(z.enum(allowableNames as [string, ...string[]]))
          .max(allowableNames.length)
          .describe("Groups and syscalls allowed back, sorted."),
      })
      .describe("The seccomp filter's exceptions."),
    context: z
      .strictObject({
        enable: z.boolean().describe("Give agents Forage's context."),
        fragments: z.array(z.string().min(1).max(16384)).max(32).describe("The user's own paragraphs."),
        skills: z
          .array(
            z.strictObject({
              name: skillName.describe("The skill's name: its directory under ~/.claude/skills."),
              description: z
                .string()
                .min(1)
                .max(1024)
                .regex(/^[^\u0000-\u001f\u007f]*$/)
                .describe("When the agent should use it (one line)."),
              body: z.string().min(1).max(65536).describe("Its instructions, in Markdown."),
            }),
          )
          .max(64)
          .describe("The user's own skills, sorted by name."),
      })
      .describe("What agents are told about the sandbox."),
  })
  .describe("A resolved sandbox template.");
