import type { AgentPreset } from "./agent-presets.js";

export interface NextStepsInput {
  /** The file written, when sandbox commands would not find it by themselves (not ./forage.config.ts). */
  config: string | undefined;
  user: string;
  /** The first template: the one that runs on any host. */
  template: string;
  agent: AgentPreset;
  isRoot: boolean;
}

/**
 * What `init` tells the user to run next: the quickstart on the template that runs anywhere,
 * exactly as typed (test/integration/newcomer.test.ts runs these lines). Sandbox commands are
 * root's: run without sudo they go to the daemon, which never loads a user's config.
 *
 * @example
 * Next, in this directory (forage-ctl finds ./forage.config.ts here):
 *   forage-ctl validate
 *   forage-ctl up demo -t default -w DIR   # DIR: an existing directory owned by "alice", mounted at /workspace
 *   forage-ctl exec demo -- id
 *   forage-ctl down demo
 */
export function nextSteps(input: NextStepsInput): string {
  const ctl = input.config === undefined ? "forage-ctl" : `forage-ctl --config ${input.config}`;
  const asRoot = input.isRoot ? ctl : `sudo ${ctl}`;
  const where = input.config === undefined ? " (forage-ctl finds ./forage.config.ts here)" : "";
  const why = input.isRoot ? "" : "; sandbox commands with sudo, since the daemon never loads a user's config";
  const { agent } = input;
  return [
    `Next, in this directory${where}${why}:`,
    `  ${ctl} validate`,
    `  ${asRoot} up demo -t ${input.template} -w DIR   # DIR: an existing directory owned by "${input.user}", mounted at /workspace`,
    `  ${asRoot} exec demo -- id`,
    `  ${asRoot} down demo`,
    `Template "${agent.name}" runs ${agent.title}. It needs its key in /run/secrets/${agent.secretName}, and either the program`,
    `${agent.name} in /usr/bin or /usr/local/bin (host-root sandboxes run the host's /usr) or NixOS with the generated`,
    `module (forage-ctl generate, then nixos-rebuild), which builds ${agent.package} into the template's system.`,
    "",
  ].join("\n");
}
