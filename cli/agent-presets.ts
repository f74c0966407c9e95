/** What `init` knows about common agents: their package, key variable and API hosts. */
export interface AgentPreset {
  name: string;
  title: string;
  package: string;
  secretName: string;
  envVar: string;
  hosts: string[];
}

export const agentPresets: Record<string, AgentPreset> = {
  claude: { name: "claude", title: "Claude Code", package: "claude-code", secretName: "anthropic-api-key", envVar: "ANTHROPIC_API_KEY", hosts: ["api.anthropic.com"] },
  codex: { name: "codex", title: "Codex", package: "codex", secretName: "openai-api-key", envVar: "OPENAI_API_KEY", hosts: ["api.openai.com"] },
  gemini: { name: "gemini", title: "Gemini CLI", package: "gemini-cli", secretName: "gemini-api-key", envVar: "GEMINI_API_KEY", hosts: ["generativelanguage.googleapis.com"] },
  aider: { name: "aider", title: "Aider", package: "aider-chat", secretName: "anthropic-api-key", envVar: "ANTHROPIC_API_KEY", hosts: ["api.anthropic.com"] },
  opencode: { name: "opencode", title: "OpenCode", package: "opencode", secretName: "anthropic-api-key", envVar: "ANTHROPIC_API_KEY", hosts: ["api.anthropic.com"] },
};
