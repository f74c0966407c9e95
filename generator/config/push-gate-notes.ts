import { inherits, templateNames, type FlatTemplate } from "./proxied-agents.js";
import type { Config } from "./schema/config.js";
import type { SchemaProblem } from "./zod-issues.js";

/**
 * The push gate is the way out for pushes, not the lock: the lock is that the sandbox holds no
 * push credential. An SSH agent that signs without asking (sshAgent.confirm: false) beside it is
 * one: the agent can push over SSH with the key itself, never reaching the gate. Said in a note
 * at the key (the key may be a deploy key that cannot push), not refused.
 */
export function pushGateBypassNotes(config: Config, flat: readonly FlatTemplate[]): SchemaProblem[] {
  const notes: SchemaProblem[] = [];
  for (const [templateName, template] of Object.entries(config.templates)) {
    if (template.sshAgent?.confirm !== false) continue;
    const gated = flat.filter(
      (each) =>
        inherits(config, each.name, templateName) &&
        each.template.sshAgent?.confirm === false &&
        pushGateOn(each.template.pushGate),
    );
    if (gated.length === 0) continue;
    notes.push({
      path: ["templates", templateName, "sshAgent", "confirm"],
      atKey: true,
      message: `sshAgent.confirm: false signs without asking, and ${templateNames(gated)} ${gated.length === 1 ? "gates" : "gate"} pushes (pushGate): a key that can push over SSH lets the agent push around the gate; keep confirm: true (each signature is asked), or name only keys that cannot push`,
    });
  }
  return notes;
}

function pushGateOn(gate: { enable?: boolean | undefined } | undefined): boolean {
  return gate !== undefined && gate.enable !== false;
}
