import { z } from "zod";
import {
  authModes,
  baseUrlPath,
  baseUrlVariable,
  headerName,
  headerValue,
  providerNames,
} from "../config/schema/agent-api.js";
import { allowEntry } from "../config/schema/allow-entry.js";
import { loginKinds } from "../config/agent-logins.js";
import {
  absolutePath,
  agentName,
  envVarName,
  hostPath,
  isCleanAbsolutePath,
  packageRef,
  secretName,
} from "../config/schema/names.js";

/** "api.example.com:8443", "127.0.0.1:8443", "[::1]": the host of an https URL, as URL.host spells it. */
function isUrlHost(host: string): boolean {
  try {
    return new URL(`https://${host}`).host === host;
  } catch {
    return false;
  }
}

/**
 * A host the placeholder key is substituted for: an allowlist entry, or, by default, the
 * upstream's own host, which may be an address (a test server or a local gateway that
 * proxy.allowUpstreams admits) where an allowlist entry may not.
 */
const apiHost = z
  .string()
  .max(260)
  .refine((host) => allowEntry.safeParse(host).success || isUrlHost(host), {
    error: 'must be a host name, "*.suffix" or an upstream\'s host, optionally with ":port"',
  });

const agentApiSchema = z
  .strictObject({
    provider: z.enum(providerNames).describe("Which API the agent talks to."),
    upstream: z
      .url({ protocol: /^https$/, error: "must be an https URL" })
      .describe("Where the proxy sends the agent's requests, without a trailing '/'."),
    header: headerName.describe("Lower-case header carrying the key."),
    value: headerValue.describe("The header's value, {key} standing for the key."),
    baseUrlEnv: z.record(baseUrlVariable, baseUrlPath).describe("Variable → path appended to the agent's proxy URL."),
    hosts: z.array(apiHost).min(1).max(64).describe("placeholder: the hosts the key is substituted for."),
  })
  .describe("The agent's API as the proxy serves it; null with auth wrapper.");

/** A rule of Claude Code's permissions, as the config takes it. */
const permissionRule = z.string().min(1).max(512);

/**
 * Where hostConfigDir appears in the sandbox: a clean absolute path, or the agent's home with a
 * trailing '/' (a hostConfigDir of "~/" keeps no last segment to name the directory by).
 */
const containerConfigDir = z
  .string()
  .refine((path) => isCleanAbsolutePath(path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path), {
    error: "must be an absolute path without '.', '..' or '//'",
  });

/** One agent of a template, as forage.json holds it: its package a dotted attribute path. */
export const settingsAgentSchema = z
  .strictObject({
    name: agentName.describe("The agent's name: its wrapper on PATH and its tmux window; the key it is filed under."),
    package: packageRef.describe('nixpkgs attribute path of the agent, e.g. "python3Packages.aider-chat".'),
    executable: z
      .string()
      .regex(/^[A-Za-z0-9._+-]{1,64}$/, { error: "must be a file name in the package's bin/ (no '/')" })
      .nullable()
      .describe("Program in the package's bin/ to run; null: the package's meta.mainProgram."),
    secret: z
      .strictObject({
        name: secretName.describe("The host secret's name."),
        hostPath: absolutePath.describe("Host file holding the key."),
        containerPath: absolutePath.describe(
          "Where the key file appears in the sandbox (wrapper auth only mounts it).",
        ),
        envVar: envVarName.describe("Variable the agent reads its key from."),
      })
      .nullable()
      .describe("The agent's API key, or null."),
    hostConfigDir: hostPath.nullable().describe("Host directory with the agent's login/config, or null."),
    containerConfigDir: containerConfigDir.nullable().describe("Where hostConfigDir appears in the sandbox, or null."),
    hostConfigDirReadOnly: z.boolean().describe("Mount hostConfigDir read-only."),
    permissions: z
      .strictObject({
        allow: z.array(permissionRule).max(256).describe("Rules allowed (skipAll already expanded)."),
        deny: z.array(permissionRule).max(256).describe("Rules denied."),
      })
      .nullable()
      .describe("Claude Code permission rules; null leaves the agent's defaults."),
    login: z
      .strictObject({
        flavor: z.enum(["claude", "codex", "gemini"]).describe("Whose login it is (the agent program's)."),
        kind: z.enum(loginKinds).describe("token: a long-lived token; oauth: a login the host refreshes."),
        tokenUrl: z
          .url({ protocol: /^https$/, error: "must be an https URL" })
          .describe("Where the host refreshes an oauth login."),
      })
      .nullable()
      .describe("The agent's subscription login kept on the host, or null."),
    auth: z.enum(authModes).describe("How the agent gets its key or login."),
    api: agentApiSchema.nullable(),
  })
  .refine((agent) => agent.login === null || agent.secret === null, {
    path: ["login"],
    error: "an agent has a login or a secret, not both",
  })
  .refine((agent) => (agent.auth === "wrapper") === (agent.api === null), {
    path: ["api"],
    error: "must be null exactly when auth is wrapper",
  })
  .describe("An AI coding agent installed in the sandbox.");
