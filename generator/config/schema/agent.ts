import { z } from "zod";
import { agentApiSchema, authSchema } from "./agent-api.js";
import { loginFlavorOf, loginKinds, loginPresets } from "../agent-logins.js";
import { agentApiProblems } from "../agent-api-use.js";
import { envVarName, hostPath, absolutePath, packageRef, secretName } from "./names.js";

/** Claude Code permission rules, written to its managed settings inside the sandbox. */
export const permissionsSchema = z
  .strictObject({
    skipAll: z
      .boolean()
      .default(false)
      .describe("Allow every built-in tool without asking. Cannot be combined with allow/deny."),
    allow: z
      .array(z.string().min(1).max(512))
      .max(256)
      .default([])
      .describe('Permission rules to allow, e.g. "Bash(npm test:*)".'),
    deny: z
      .array(z.string().min(1).max(512))
      .max(256)
      .default([])
      .describe('Permission rules to deny, e.g. "Bash(curl:*)".'),
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
    authEnvVar: envVarName
      .optional()
      .describe('Environment variable the agent reads its key from, e.g. "ANTHROPIC_API_KEY".'),
    hostConfigDir: hostPath
      .optional()
      .describe('Host directory with the agent\'s login/config (e.g. "~/.claude"), bind-mounted in.'),
    containerConfigDir: absolutePath
      .optional()
      .describe("Where hostConfigDir appears in the sandbox; defaults to the same path under the agent's home."),
    hostConfigDirReadOnly: z.boolean().default(false).describe("Mount hostConfigDir read-only."),
    permissions: permissionsSchema.nullable().default(null),
    auth: authSchema,
    login: z
      .enum(loginKinds)
      .optional()
      .describe(
        'A subscription login kept on the host (`forage-ctl auth set AGENT`) instead of an API key. "token": a long-lived token (Claude Code\'s `claude setup-token`), given by auth wrapper or proxy. "oauth": the agent\'s own login (Claude, Codex/ChatGPT, Gemini/Google); the host refreshes it and the proxy adds it, the sandbox gets stand-in tokens.',
      ),
    api: agentApiSchema.optional(),
  })
  .refine((a) => (a.secretName === undefined) === (a.authEnvVar === undefined), {
    error: "secretName and authEnvVar go together: set both (key from a secret) or neither",
  })
  .refine((a) => a.auth === undefined || a.auth === "wrapper" || a.secretName !== undefined || a.login !== undefined, {
    error:
      "auth proxy and placeholder need the key's secret or a login: set secretName and authEnvVar (or login), or remove auth",
  })
  .superRefine((a, context) => {
    for (const message of loginProblems(a)) context.addIssue({ code: "custom", message, path: ["login"] });
  })
  .superRefine((a, context) => {
    // Reported at the key: the fix is to remove it.
    for (const { path, message } of agentApiProblems(a))
      context.addIssue({ code: "custom", message, path, params: { atKey: true } });
  })
  .refine((a) => a.hostConfigDir !== undefined || (a.containerConfigDir === undefined && !a.hostConfigDirReadOnly), {
    error:
      "containerConfigDir and hostConfigDirReadOnly say how hostConfigDir is mounted: set hostConfigDir, or remove them",
  })
  .describe("An AI coding agent installed in the sandbox, with a wrapper that supplies its key.");

/** What is wrong with an agent's login, if it has one (or with api.tokenUrl without one). */
function loginProblems(agent: {
  package: string;
  login?: string | undefined;
  secretName?: string | undefined;
  hostConfigDir?: string | undefined;
  auth?: string | undefined;
  api?: { tokenUrl?: string | undefined } | undefined;
}): string[] {
  if (agent.login === undefined)
    return agent.api?.tokenUrl === undefined
      ? []
      : ['api.tokenUrl is where an oauth login is refreshed: set login: "oauth", or remove api.tokenUrl'];
  const flavor = loginFlavorOf(agent.package);
  if (flavor === undefined)
    return [
      `Forage knows the logins of claude-code, codex and gemini-cli, not of "${agent.package}": give this agent an API key (secretName and authEnvVar) instead`,
    ];
  const problems: string[] = [];
  const { kinds } = loginPresets[flavor];
  if (!(kinds as readonly string[]).includes(agent.login))
    problems.push(`${flavor}'s login is ${kinds.map((kind) => `"${kind}"`).join(" or ")}, not "${agent.login}"`);
  if (agent.secretName !== undefined)
    problems.push("an agent uses a login or an API key, not both: remove login, or secretName and authEnvVar");
  // The host's login directory holds the refresh token the host is meant to keep.
  if (agent.hostConfigDir !== undefined)
    problems.push(
      "hostConfigDir would mount the host's own login (its refresh token) into the sandbox: remove hostConfigDir; the sandbox gets stand-in credentials",
    );
  if (agent.auth === "placeholder")
    problems.push('auth "placeholder" is for API keys: use auth proxy (the token stays on the host) or wrapper');
  if (agent.login === "oauth" && agent.auth === "wrapper")
    problems.push(
      'an oauth login\'s refresh token never enters the sandbox, so it goes by the proxy: remove auth "wrapper"',
    );
  return problems;
}

export type AgentInput = z.input<typeof agentSchema>;
export type Agent = z.output<typeof agentSchema>;
