import type { AuthMode, ProviderName } from "./schema/agent-api.js";
import type { Agent } from "./schema/agent.js";
import { agentProgramOf, type AgentProgram } from "./agent-programs.js";

/** How the proxy authenticates to one API, and how a client SDK is usually pointed at it. */
export interface ProviderPreset {
  upstream: string;
  /** Lower-case header that carries the key. */
  header: string;
  /** The header's value, `{key}` standing for the key. */
  value: string;
  /** Base-URL variables the provider's own SDKs read, each with the path they expect appended. */
  baseUrlEnv: Record<string, string>;
}

/** The public APIs (their SDKs' conventions: OpenAI's base URL includes /v1, Anthropic's does not). */
export const providerPresets: Record<Exclude<ProviderName, "custom">, ProviderPreset> = {
  anthropic: {
    upstream: "https://api.anthropic.com",
    header: "x-api-key",
    value: "{key}",
    baseUrlEnv: { ANTHROPIC_BASE_URL: "" },
  },
  openai: {
    upstream: "https://api.openai.com",
    header: "authorization",
    value: "Bearer {key}",
    baseUrlEnv: { OPENAI_BASE_URL: "/v1" },
  },
  google: {
    upstream: "https://generativelanguage.googleapis.com",
    header: "x-goog-api-key",
    value: "{key}",
    baseUrlEnv: { GOOGLE_GEMINI_BASE_URL: "" },
  },
};

type KnownProvider = keyof typeof providerPresets;

/**
 * Agents whose base-URL variables differ from their provider SDK's: Aider goes through LiteLLM
 * (`*_API_BASE`), OpenCode through the AI SDK (whose Anthropic base URL includes /v1).
 */
const agentPresets: Partial<
  Record<
    AgentProgram,
    { provider?: KnownProvider; baseUrlEnv?: Partial<Record<KnownProvider, Record<string, string>>> }
  >
> = {
  claude: { provider: "anthropic" },
  codex: { provider: "openai" },
  gemini: { provider: "google" },
  aider: {
    baseUrlEnv: {
      anthropic: { ANTHROPIC_API_BASE: "", ANTHROPIC_BASE_URL: "" },
      openai: { OPENAI_API_BASE: "/v1", OPENAI_BASE_URL: "/v1" },
    },
  },
  opencode: { baseUrlEnv: { anthropic: { ANTHROPIC_BASE_URL: "/v1" }, openai: { OPENAI_BASE_URL: "/v1" } } },
};

const providerByKeyVariable: Record<string, KnownProvider> = {
  ANTHROPIC_API_KEY: "anthropic",
  OPENAI_API_KEY: "openai",
  GEMINI_API_KEY: "google",
  GOOGLE_API_KEY: "google",
};

/** The presets of the program an agent package is (agentProgramOf), if Forage knows it. */
function presetOf(packagePath: string): (typeof agentPresets)[AgentProgram] {
  const program = agentProgramOf(packagePath);
  return program === undefined ? undefined : agentPresets[program];
}

/**
 * The provider an agent talks to when its config does not say: from its package, else from the
 * variable it reads its key from; undefined when neither tells.
 *
 * @example inferProvider("claude-code", "ANTHROPIC_API_KEY") // "anthropic"
 */
export function inferProvider(packagePath: string, keyVariable: string | undefined): KnownProvider | undefined {
  return (
    presetOf(packagePath)?.provider ?? (keyVariable === undefined ? undefined : providerByKeyVariable[keyVariable])
  );
}

/** The base-URL variables an agent of this package reads for this provider. */
export function presetBaseUrlEnv(packagePath: string, provider: ProviderName): Record<string, string> {
  if (provider === "custom") return {};
  return presetOf(packagePath)?.baseUrlEnv?.[provider] ?? providerPresets[provider].baseUrlEnv;
}

/**
 * The auth an agent ends up with: as written, else "proxy" under useProxy; "wrapper" without a
 * key or login; always "proxy" for an oauth login (its refresh token stays on the host).
 */
export function effectiveAuth(agent: Pick<Agent, "auth" | "secretName" | "login">, useProxy: boolean): AuthMode {
  if (agent.login === "oauth") return "proxy";
  if (agent.secretName === undefined && agent.login === undefined) return "wrapper";
  return agent.auth ?? (useProxy ? "proxy" : "wrapper");
}
