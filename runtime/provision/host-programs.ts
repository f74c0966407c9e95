import { SandboxError } from "../core/errors.js";
import { findExecutable } from "../core/find-executable.js";
import type { AgentModel, TemplateModel } from "../../generator/model/model.js";

/** Where a host-root sandbox finds programs: the host's /usr, bound read-only. */
export const hostProgramDirs = ["/usr/local/bin", "/usr/bin", "/usr/sbin"];

/** A template's agent cannot run in a host-root sandbox because the host lacks its program. */
export class MissingProgramError extends SandboxError {
  override name = "MissingProgramError";
  constructor(message: string) {
    super(message, "config");
  }
}

/** The names an agent's program may have: `executable`, else the agent's name, else the package's. */
export function programCandidates(agent: AgentModel): string[] {
  if (agent.executable !== null) return [agent.executable];
  return [...new Set([agent.name, agent.package[agent.package.length - 1] ?? agent.name])];
}

/**
 * Finds each agent's program on the host. Host-root sandboxes cannot install Nix packages, so an
 * agent whose program the host lacks is refused up front with what to do about it.
 */
export async function resolveAgentPrograms(template: TemplateModel): Promise<Map<string, string>> {
  const programs = new Map<string, string>();
  for (const agent of template.agents) {
    const found = await findExecutable(programCandidates(agent), hostProgramDirs);
    if (found === undefined) {
      throw new MissingProgramError(
        `template "${template.name}", agent "${agent.name}": host-root sandboxes run the host's programs, and none of ${programCandidates(agent).join(", ")} is installed in ${hostProgramDirs.join(":")}. ` +
          `Install it on the host, set agents.${agent.name}.executable to a program the host has, or use a Nix host (NixOS) where the template's packages are built.`,
      );
    }
    programs.set(agent.name, found);
  }
  return programs;
}
