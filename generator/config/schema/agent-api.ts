import { z } from "zod";
import { allowEntry } from "./allow-entry.js";
import { envVarName } from "./names.js";

/** How an agent gets its API key; see `auth` below. */
export const authModes = ["wrapper", "proxy", "placeholder"] as const;
export type AuthMode = (typeof authModes)[number];

/** API providers the proxy knows how to authenticate to; "custom" takes `header` and `value`. */
export const providerNames = ["anthropic", "openai", "google", "custom"] as const;
export type ProviderName = (typeof providerNames)[number];

/** Headers that frame or route a request: a key in one of them would corrupt the request. */
const reservedHeaders = [
  "connection",
  "content-length",
  "host",
  "keep-alive",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
];

/** An HTTP header name (RFC 9110 token), lower-case so lookups need no folding. */
export const headerName = z
  .string()
  .regex(/^[a-z0-9!#$%&'*+.^_`|~-]{1,64}$/, { error: 'must be a lower-case HTTP header name, e.g. "x-api-key"' })
  .refine((name) => !reservedHeaders.includes(name), {
    error: `must not be a header that frames or routes the request (${reservedHeaders.join(", ")})`,
  });

/**
 * A variable that points an agent at the proxy: it must look like one, so the wrappers, which
 * export these after the key, can never be made to set PATH, LD_PRELOAD, NODE_OPTIONS and the like.
 */
export const baseUrlVariable = envVarName.regex(/^[A-Z][A-Z0-9_]*_(URL|BASE|ENDPOINT|HOST)$/, {
  error: 'must be an upper-case variable ending in _URL, _BASE, _ENDPOINT or _HOST, e.g. "OPENAI_BASE_URL"',
});

/** The value of the header that carries the key, `{key}` standing for the key (e.g. "Bearer {key}"). */
export const headerValue = z
  .string()
  .max(256)
  .regex(/^[\x20-\x7e]*\{key\}[\x20-\x7e]*$/, {
    error: 'must contain {key} once, in printable ASCII, e.g. "Bearer {key}"',
  });

/** What a base-URL variable appends to the agent's proxy URL: nothing, or a path such as "/v1". */
export const baseUrlPath = z
  .string()
  .regex(/^(\/[A-Za-z0-9._~-]+)*$/, { error: 'must be empty or a path such as "/v1"' });

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
    value: headerValue
      .optional()
      .describe('custom provider: the header\'s value, with {key} where the key goes. Default: "{key}".'),
    baseUrlEnv: z
      .record(baseUrlVariable, baseUrlPath)
      .refine((variables) => Object.keys(variables).length >= 1, {
        error: "name at least one variable, or the agent will not find the proxy",
      })
      .optional()
      .describe(
        'Variables that point the agent at the proxy, each with a path to append, e.g. { OPENAI_BASE_URL: "/v1" }. Default: the agent\'s preset.',
      ),
    tokenUrl: z
      .url({ protocol: /^https$/, error: 'must be an https URL, e.g. "https://auth.example.com/oauth/token"' })
      .optional()
      .describe("login oauth: where the host refreshes the access token. Default: the agent's own token endpoint."),
    hosts: z
      .array(allowEntry)
      .min(1)
      .max(64)
      .optional()
      .describe(
        "placeholder: the only hosts the real key is substituted for (exact names or *.suffix, optional :port). Default: the upstream's host.",
      ),
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
