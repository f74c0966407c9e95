import { splitPackagePath } from "../lib/package-path.js";

/** Where a sandbox's rendered context is mounted, read-only (runtime/context/context-files.ts writes it). */
export const contextMountPath = "/run/forage/context";

/** The system prompt Claude Code is given with --append-system-prompt by its wrapper. */
export const claudePromptFile = `${contextMountPath}/system-prompt.md`;

/** Agent programs that read Forage's context, by their package's own name. */
export type ContextReader = "claude" | "codex" | "opencode" | "gemini";

const readers: Record<string, ContextReader> = { "claude-code": "claude", codex: "codex", opencode: "opencode", "gemini-cli": "gemini" };

/**
 * Which program an agent package is, for its context: where it reads instructions and skills.
 *
 * @example contextReaderOf("llm-agents.codex") // "codex"
 */
export function contextReaderOf(packagePath: string): ContextReader | undefined {
  const name = splitPackagePath(packagePath).at(-1) ?? packagePath;
  return Object.hasOwn(readers, name) ? readers[name] : undefined;
}
