import { splitPackagePath } from "../lib/package-path.js";

/** The agent programs Forage knows by their package: what each reads (logins, context, permissions) is decided from this. */
export type AgentProgram = "claude" | "codex" | "gemini" | "opencode" | "aider";

/** Each program's package, by its own name (the last segment of its attribute path). */
const programByPackage: Record<string, AgentProgram> = {
  "claude-code": "claude",
  codex: "codex",
  "gemini-cli": "gemini",
  opencode: "opencode",
  "aider-chat": "aider",
};

/** How each program is called in messages. */
export const agentProgramTitles: Record<AgentProgram, string> = {
  claude: "Claude Code",
  codex: "Codex",
  gemini: "Gemini CLI",
  opencode: "OpenCode",
  aider: "Aider",
};

/**
 * Which agent program a package is, by the package's own name; undefined for a program Forage
 * does not know. A name containing "claude-code" is Claude Code too (its builds such as
 * claude-code-bin run the same `claude`). The one classifier of agent packages: logins
 * (agent-logins.ts), context (agent-context-targets.ts), API presets (agent-api-defaults.ts) and
 * permissions (check-permissions.ts) all ask it.
 *
 * @example agentProgramOf("llm-agents.codex") // "codex"; agentProgramOf("claude-code-bin") // "claude"; agentProgramOf("ripgrep") // undefined
 */
export function agentProgramOf(packagePath: string): AgentProgram | undefined {
  const name = splitPackagePath(packagePath).at(-1) ?? packagePath;
  if (Object.hasOwn(programByPackage, name)) return programByPackage[name];
  return name.includes("claude-code") ? "claude" : undefined;
}
