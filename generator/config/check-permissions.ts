import { agentProgramOf, agentProgramTitles } from "./agent-programs.js";
import type { FlatTemplate } from "./proxied-agents.js";
import type { Config } from "./schema/config.js";
import type { Agent } from "./schema/agent.js";
import type { SchemaProblem } from "./zod-issues.js";

/**
 * Claude Code's permissions become the sandbox's managed settings, one file for the whole sandbox
 * (/etc/claude-code/managed-settings.json), which only Claude Code reads. Refused: permissions on
 * an agent whose package is another known program (nothing would read them), and two agents of a
 * template with different permissions (one agent's rules would be unused), at the second agent.
 * Runs on sound `extends` (flattened templates), so inherited agents count.
 */
export function checkPermissions(config: Config, flat: readonly FlatTemplate[]): SchemaProblem[] {
  return [...otherProgramsPermissions(config), ...differingPermissions(config, flat)];
}

/** Permissions on an agent Forage knows to be another program than Claude Code: read by nothing. */
function otherProgramsPermissions(config: Config): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  for (const [templateName, template] of Object.entries(config.templates)) {
    for (const [agentName, agent] of Object.entries(template.agents ?? {})) {
      const program = agentProgramOf(agent.package);
      if (!hasPermissions(agent) || program === undefined || program === "claude") continue;
      problems.push({
        path: ["templates", templateName, "agents", agentName, "permissions"],
        atKey: true,
        message: `only Claude Code reads permissions (they become its managed settings, /etc/claude-code/managed-settings.json), and "${agent.package}" is ${agentProgramTitles[program]}: remove permissions, and set ${agentProgramTitles[program]}'s own rules in its config`,
      });
    }
  }
  return problems;
}

/**
 * Permissions on an agent whose package Forage does not know (neither Claude Code nor another
 * program it knows): it may be a Claude Code build under another name, so they load, with a note.
 */
export function unrecognisedPermissionsNotes(config: Config): SchemaProblem[] {
  const notes: SchemaProblem[] = [];
  for (const [templateName, template] of Object.entries(config.templates)) {
    for (const [agentName, agent] of Object.entries(template.agents ?? {})) {
      if (!hasPermissions(agent) || agentProgramOf(agent.package) !== undefined) continue;
      notes.push({
        path: ["templates", templateName, "agents", agentName, "permissions"],
        atKey: true,
        message: `only Claude Code reads permissions (they become its managed settings, /etc/claude-code/managed-settings.json); "${agent.package}" is not recognised as Claude Code (whose package name contains "claude-code"): remove permissions unless it is Claude Code`,
      });
    }
  }
  return notes;
}

/** A sandbox has one managed settings file: differing permissions of its agents cannot all hold. */
function differingPermissions(config: Config, flat: readonly FlatTemplate[]): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  for (const { name, template } of flat) {
    // Permissions refused above (another program's) are left out: they say nothing about Claude's.
    const given = Object.entries(template.agents ?? {}).filter(
      ([, agent]) => hasPermissions(agent) && (agentProgramOf(agent.package) ?? "claude") === "claude",
    );
    const [first, ...others] = given;
    if (first === undefined) continue;
    for (const [agentName, agent] of others) {
      if (JSON.stringify(agent.permissions) === JSON.stringify(first[1].permissions)) continue;
      const own = config.templates[name]?.agents?.[agentName] !== undefined;
      problems.push({
        path: own ? ["templates", name, "agents", agentName, "permissions"] : ["templates", name],
        message: `agents "${first[0]}" and "${agentName}"${own ? "" : " (inherited)"} have different permissions, but a sandbox has one set of Claude Code managed settings: give them the same permissions, or put them in separate templates`,
      });
    }
  }
  return problems;
}

function hasPermissions(agent: Agent): boolean {
  return agent.permissions !== null && agent.permissions !== undefined;
}
