import { z } from "zod";
import { agentApiSchema, authSchema } from "./agent-api.js";
import { envVarName, hostPath, absolutePath, packageRef, secretName } from "./names.js";

/** Claude Code permission rules, written to its managed settings inside the sandbox. */
export const permissionsSchema = z
  .strictObject({
    skipAll: z.boolean().default(false).describe("Allow every built-in tool without asking. Cannot be combined with allow/deny."),
    allow: z.array(z.string().min(1).max(512)).max(256).default([]).describe('Permission rules to allow, e.g. "Bash(npm test:*)".'),
    deny: z.array(z.string().min(1).max(512)).max(256).default([]).describe('Permission rules to deny, e.g. "Bash(curl:*)".'),
  })
  .refine((p) => !(p.skipAll && (p.allow.length > 0 || p.deny.length > 0)), {
    error: "skipAll cannot be combined with allow or deny: remove skipAll, or remove the allow/deny lists",
  })
  .describe("Agent permission rules; null leaves the agent's defaults.");

/** One AI coding agent installed in a template's sandboxes. */
export const agentSchema = z
  .strictObject({
    package: packageRef.describe('nixpkgs attribute path of the agent, e.g. "claude-code".'),
    executable: z
      .string()
      .regex(/^[A-Za-z0-9._+-]{1,64}$/, { error: "must be a file name in the package's bin/ (no '/')" })
      .optional()
      .describe("Program in the package's bin/ to run; defaults to the package's meta.mainProgram."),
    secretName: secretName.optional().describe("Name of a host secret (see `secrets`) holding this agent's API key."),
    authEnvVar: envVarName.optional().describe('Environment variable the agent reads its key from, e.g. "ANTHROPIC_API_KEY".'),
    hostConfigDir: hostPath.optional().describe('Host directory with the agent\'s login/config (e.g. "~/.claude"), bind-mounted in.'),
    containerConfigDir: absolutePath.optional().describe("Where hostConfigDir appears in the sandbox; defaults to the same path under the agent's home."),
    hostConfigDirReadOnly: z.boolean().default(false).describe("Mount hostConfigDir read-only."),
    permissions: permissionsSchema.nullable().default(null),
    auth: authSchema,
    api: agentApiSchema.optional(),
  })
  .refine((a) => (a.secretName === undefined) === (a.authEnvVar === undefined), {
    error: "secretName and authEnvVar go together: set both (key from a secret) or neither",
  })
  .refine((a) => a.auth === undefined || a.auth === "wrapper" || a.secretName !== undefined, {
    error: "auth proxy and placeholder need the key's secret: set secretName and authEnvVar, or remove auth",
  })
  .refine((a) => a.hostConfigDir !== undefined || (a.containerConfigDir === undefined && !a.hostConfigDirReadOnly), {
    error: "containerConfigDir and hostConfigDirReadOnly say how hostConfigDir is mounted: set hostConfigDir, or remove them",
  })
  .describe("An AI coding agent installed in the sandbox, with a wrapper that supplies its key.");

export type AgentInput = z.input<typeof agentSchema>;
export type Agent = z.output<typeof agentSchema>;
