import { z } from "zod";
import { allowEntry } from "./allow-entry.js";
import { envVarName } from "./names.js";

/** How an agent gets its API key; see `auth` below. */
export const authModes = ["wrapper", "proxy", "placeholder"] as const;
export type AuthMode = (typeof authModes)[number];

/** API providers the proxy knows how to authenticate to; "custom" takes `header` and `value`. */
export const providerNames = ["anthropic", "openai", "google", "custom"] as const;
export type ProviderName = (typeof providerNames)[number];

/** An HTTP header name (RFC 9110 token), lower-case so lookups need no folding. */
const headerName = z.string().regex(/^[a-z0-9!#$%&'*+.^_`|~-]{1,64}$/, { error: 'must be a lower-case HTTP header name, e.g. "x-api-key"' });

/** How the API proxy reaches and authenticates to the agent's provider. */
export const agentApiSchema = z
  .strictObject({
    provider: z
      .enum(providerNames)
      .optional()
      .describe(
        "Which API the agent talks to. Default: from the agent's package (claude-code, codex, gemini-cli, aider-chat, opencode) or its authEnvVar (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY).",
      ),
    upstream: z
      .url({ protocol: /^https$/, error: 'must be an https URL, e.g. "https://api.example.com"' })
      .optional()
      .describe("Where the proxy sends the agent's requests. Default: the provider's public API."),
    header: headerName.optional().describe('custom provider: the header that carries the key, e.g. "x-api-key".'),
    value: z
      .string()
      .max(256)
      .regex(/^[\x20-\x7e]*\{key\}[\x20-\x7e]*$/, { error: 'must contain {key} once, in printable ASCII, e.g. "Bearer {key}"' })
      .optional()
      .describe('custom provider: the header\'s value, with {key} where the key goes. Default: "{key}".'),
    baseUrlEnv: z
      .record(envVarName, z.string().regex(/^(\/[A-Za-z0-9._~-]+)*$/, { error: 'must be empty or a path such as "/v1"' }))
      .optional()
      .describe('Variables that point the agent at the proxy, each with a path to append, e.g. { OPENAI_BASE_URL: "/v1" }. Default: the agent\'s preset.'),
    hosts: z
      .array(allowEntry)
      .min(1)
      .max(64)
      .optional()
      .describe("placeholder: the only hosts the real key is substituted for (exact names or *.suffix, optional :port). Default: the upstream's host."),
  })
  .describe("The agent's API, for auth proxy and placeholder.");

/** The `auth` field of an agent. */
export const authSchema = z
  .enum(authModes)
  .optional()
  .describe(
    'How the agent gets its key. "wrapper": the key file is mounted for the agent and exported to its process only. "proxy": the key never enters the sandbox; the host\'s API proxy adds it to the agent\'s requests. "placeholder": the agent\'s variable holds a random stand-in that the proxy swaps for the key only on requests to the secret\'s hosts. Default: "proxy" with the template\'s useProxy, else "wrapper".',
  );

export type AgentApi = z.output<typeof agentApiSchema>;
