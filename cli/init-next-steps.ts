import type { AgentPreset } from "./agent-presets.js";

export interface NextStepsInput {
  /** The file written, when sandbox commands would not find it by themselves (not ./forage.config.ts). */
  config: string | undefined;
  user: string;
  /** The first template: the one that runs on any host. */
  template: string;
  agent: AgentPreset;
  /** The person types these in a shell of their own, not root's: after `sudo forage-ctl init` too. */
  withSudo: boolean;
}

/**
 * What `init` tells the user to run next: the quickstart on the template that runs anywhere,
 * exactly as the person who ran init types them (test/integration/newcomer.test.ts runs these
 * lines). Sandbox commands are root's: run without sudo they go to the daemon, which never loads
 * a user's config (and before the first root `up` there is none).
 *
 * @example
 * Next, in this directory (forage-ctl finds ./forage.config.ts here); sandbox commands with sudo, since the daemon never loads a user's config:
 *   forage-ctl validate
 *   sudo forage-ctl up demo -t default -w DIR   # DIR: an existing directory owned by "alice", mounted at /workspace
 *   sudo forage-ctl exec demo -- id
 *   sudo forage-ctl down demo
 */
export function nextSteps(input: NextStepsInput): string {
  const ctl = input.config === undefined ? "forage-ctl" : `forage-ctl --config ${input.config}`;
  const asRoot = input.withSudo ? `sudo ${ctl}` : ctl;
  const where = input.config === undefined ? " (forage-ctl finds ./forage.config.ts here)" : "";
  const why = input.withSudo ? "; sandbox commands with sudo, since the daemon never loads a user's config" : "";
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
