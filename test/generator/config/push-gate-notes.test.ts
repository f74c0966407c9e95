import { describe, expect, it } from "vitest";
import { configProbe } from "./temp-config.js";

/*
 * An SSH agent that signs without asking beside a push gate: the sandbox holds a key that may push
 * over SSH itself, around the gate. Loaded, with a note at the key; the model is unchanged.
 */
const { load } = configProbe("user: alice\n");
const agent = 'sshAgent: { keys: ["~/.ssh/id_ed25519"], confirm: false }';

describe("sshAgent.confirm: false beside pushGate", () => {
  it("loads with a note at the key, naming the gated templates it reaches (also through extends)", async () => {
    const { notes, model } = await load(
      `templates:\n  base:\n    ${agent}\n  gated:\n    extends: base\n    pushGate: {}\n`,
    );
    expect(notes).toEqual([
      '4:46: templates.base.sshAgent.confirm: note: sshAgent.confirm: false signs without asking, and template "gated" gates pushes (pushGate): a key that can push over SSH lets the agent push around the gate; keep confirm: true (each signature is asked), or name only keys that cannot push',
    ]);
    expect(model.templates.find((t) => t.name === "gated")?.sshAgent?.confirm).toBe(false);
  });

  it("loads without a note when signatures are asked, the gate is off, or there is no gate", async () => {
    for (const yaml of [
      'templates:\n  t:\n    sshAgent: { keys: ["~/.ssh/id_ed25519"] }\n    pushGate: {}\n',
      `templates:\n  t:\n    ${agent}\n    pushGate: { enable: false }\n`,
      `templates:\n  t:\n    ${agent}\n`,
    ]) {
      expect((await load(yaml)).notes, yaml).toEqual([]);
    }
  });
});
