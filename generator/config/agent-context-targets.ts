import { agentProgramOf } from "./agent-programs.js";

/** Where a sandbox's rendered context is mounted, read-only (runtime/context/context-files.ts writes it). */
export const contextMountPath = "/run/forage/context";

/** The system prompt Claude Code is given with --append-system-prompt by its wrapper. */
export const claudePromptFile = `${contextMountPath}/system-prompt.md`;

/** Agent programs that read Forage's context, by their package's own name. */
export type ContextReader = "claude" | "codex" | "opencode" | "gemini";

/**
 * Which program an agent package is, for its context: where it reads instructions and skills
 * (agentProgramOf; Aider reads none of Forage's context files).
 *
 * @example contextReaderOf("llm-agents.codex") // "codex"
 */
export function contextReaderOf(packagePath: string): ContextReader | undefined {
  const program = agentProgramOf(packagePath);
  return program === "aider" ? undefined : program;
}
