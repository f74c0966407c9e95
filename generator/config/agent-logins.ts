import type { ProviderName } from "./schema/agent-api.js";
import { agentProgramOf, type AgentProgram } from "./agent-programs.js";

/**
 * The subscription logins Forage keeps on the host, one per agent program. "token": a long-lived
 * token the agent reads from a variable (Claude Code's `claude setup-token`, no refresh). "oauth":
 * the agent's own login file, whose refresh token the host keeps and uses; the sandbox gets a copy
 * whose tokens are stand-ins.
 */
export const loginKinds = ["token", "oauth"] as const;
export type LoginKind = (typeof loginKinds)[number];

/** The agent programs whose logins Forage knows. */
export type LoginFlavor = "claude" | "codex" | "gemini";

/** What one agent program's login needs: its API, where the host refreshes it, how the agent is pointed at the proxy. */
export interface LoginPreset {
  kinds: readonly LoginKind[];
  provider: Exclude<ProviderName, "custom">;
  /** The API a logged-in agent talks to (a subscription login has its own: Codex's is ChatGPT's backend). */
  upstream: string;
  /** Where an oauth login's access token is refreshed (each agent's own published endpoint). */
  tokenUrl: string;
  /** Variables that point the agent at its proxy route (with the path appended). */
  baseUrlEnv: Record<string, string>;
  /** token logins: the variable the agent reads the token from. */
  tokenEnv: string | null;
}

/*
 * Facts from the agents' own documentation and sources (see the README's "Subscription logins"):
 * Claude Code reads CLAUDE_CODE_OAUTH_TOKEN and ANTHROPIC_BASE_URL and sends OAuth tokens as
 * Bearer with the `oauth-2025-04-20` beta; Codex with a ChatGPT login posts to
 * chatgpt.com/backend-api/codex (OPENAI_BASE_URL replaces it); Gemini CLI's Google login talks to
 * Code Assist (CODE_ASSIST_ENDPOINT replaces it).
 */
export const loginPresets: Record<LoginFlavor, LoginPreset> = {
  claude: {
    kinds: ["token", "oauth"],
    provider: "anthropic",
    upstream: "https://api.anthropic.com",
    tokenUrl: "https://platform.claude.com/v1/oauth/token",
    baseUrlEnv: { ANTHROPIC_BASE_URL: "" },
    tokenEnv: "CLAUDE_CODE_OAUTH_TOKEN",
  },
  codex: {
    kinds: ["oauth"],
    provider: "openai",
    upstream: "https://chatgpt.com/backend-api/codex",
    tokenUrl: "https://auth.openai.com/oauth/token",
    baseUrlEnv: { OPENAI_BASE_URL: "" },
    tokenEnv: null,
  },
  gemini: {
    kinds: ["oauth"],
    provider: "google",
    upstream: "https://cloudcode-pa.googleapis.com",
    tokenUrl: "https://oauth2.googleapis.com/token",
    baseUrlEnv: { CODE_ASSIST_ENDPOINT: "" },
    tokenEnv: null,
  },
};

/**
 * Which login an agent package has, by its package's own name (agentProgramOf); undefined for
 * programs whose logins Forage does not know.
 *
 * @example loginFlavorOf("llm-agents.claude-code") // "claude"
 */
export function loginFlavorOf(packagePath: string): LoginFlavor | undefined {
  const program = agentProgramOf(packagePath);
  return isLoginFlavor(program) ? program : undefined;
}

function isLoginFlavor(program: AgentProgram | undefined): program is LoginFlavor {
  return program === "claude" || program === "codex" || program === "gemini";
}
