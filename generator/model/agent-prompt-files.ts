import { claudePromptFile, contextReaderOf } from "../config/agent-context-targets.js";
import type { TemplateModel } from "./model.js";

/**
 * Agent name → the prompt file its wrapper passes with --append-system-prompt: Claude Code's
 * agents, when the template gives context. The Nix wrappers and host-root's launcher read the same.
 */
export function agentPromptFiles(template: TemplateModel): Record<string, string> {
  if (!template.context.enable) return {};
  return Object.fromEntries(
    template.agents
      .filter((agent) => contextReaderOf(agent.package.join(".")) === "claude")
      .map((agent) => [agent.name, claudePromptFile]),
  );
}
