/** What `init` knows about common agents: their package, key variable and API hosts. */
export interface AgentPreset {
  name: string;
  title: string;
  package: string;
  secretName: string;
  envVar: string;
  hosts: string[];
  /**
   * A subscription login Forage keeps on the host for this agent (README: "Subscription logins"),
   * and how the user stores it; absent for agents whose logins Forage does not know.
   */
  login?: { kind: "token" | "oauth"; store: string };
}

export const agentPresets: Record<string, AgentPreset> = {
  claude: {
    name: "claude",
    title: "Claude Code",
    package: "claude-code",
    secretName: "anthropic-api-key",
    envVar: "ANTHROPIC_API_KEY",
    hosts: ["api.anthropic.com"],
    login: { kind: "token", store: "`claude setup-token` on the host, then `forage-ctl auth set claude`" },
  },
  codex: {
    name: "codex",
    title: "Codex",
    package: "codex",
    secretName: "openai-api-key",
    envVar: "OPENAI_API_KEY",
    hosts: ["api.openai.com"],
    login: { kind: "oauth", store: "`codex login` on the host, then `forage-ctl auth set codex < ~/.codex/auth.json`" },
  },
  gemini: {
    name: "gemini",
    title: "Gemini CLI",
    package: "gemini-cli",
    secretName: "gemini-api-key",
    envVar: "GEMINI_API_KEY",
    hosts: ["generativelanguage.googleapis.com"],
    login: {
      kind: "oauth",
      store: "log in with `gemini` on the host, then `forage-ctl auth set gemini < ~/.gemini/oauth_creds.json`",
    },
  },
  aider: {
    name: "aider",
    title: "Aider",
    package: "aider-chat",
    secretName: "anthropic-api-key",
    envVar: "ANTHROPIC_API_KEY",
    hosts: ["api.anthropic.com"],
  },
  opencode: {
    name: "opencode",
    title: "OpenCode",
    package: "opencode",
    secretName: "anthropic-api-key",
    envVar: "ANTHROPIC_API_KEY",
    hosts: ["api.anthropic.com"],
  },
};
