import { parseHookMessage, type HookMessage } from "./hook-message.js";
import type { OutboxLayout } from "./outbox.js";
import { checkPush, decideUpdate, type GateTarget, type GateVerdict } from "./push-decision.js";
import type { PushObjects } from "./pushed-commits.js";
import { refUpdateKey } from "./ref-update.js";

/**
 * One push through the gate, as its hooks report it: first pre-receive, whose updates are all
 * checked (one refused refuses the push); then one update hook per ref, each asked and pushed on
 * its own, so git's own summary says which refs went upstream. An update the pre-receive did not
 * let through, a second pre-receive, or a message that does not parse is refused.
 */
export class PushSession {
  /** The updates pre-receive let through and no update hook has reported yet. */
  private pending: Set<string> | undefined;

  constructor(
    private readonly layout: OutboxLayout,
    private readonly target: GateTarget,
  ) {}

  /** The verdict for one hook's message; never rejects. */
  async answer(text: string): Promise<GateVerdict> {
    try {
      const message = parseHookMessage(text);
      return message.hook === "pre-receive" ? await this.preReceive(message) : await this.update(message);
    } catch (error) {
      return { accepted: false, lines: [`error: forage push gate: ${(error as Error).message}`] };
    }
  }

  private async preReceive(message: HookMessage & { hook: "pre-receive" }): Promise<GateVerdict> {
    if (this.pending !== undefined) throw new Error("a second pre-receive in one push");
    this.pending = new Set();
    const verdict = await checkPush(this.target, this.quarantined(message.quarantine), message.updates);
    if (verdict.accepted) this.pending = new Set(message.updates.map(refUpdateKey));
    return verdict;
  }

  private async update(message: HookMessage & { hook: "update" }): Promise<GateVerdict> {
    const key = refUpdateKey(message.update);
    if (this.pending?.delete(key) !== true) throw new Error(`${message.update.ref}: an update the gate did not check`);
    // By the update hook git has moved the push's objects out of quarantine into the outbox's own.
    return decideUpdate(
      this.target,
      { gitDir: this.layout.gitDir, quarantine: `${this.layout.gitDir}/objects` },
      message.update,
    );
  }

  /**
   * The objects pre-receive sees: git-receive-pack's quarantine in the outbox (it names it from
   * inside the repository, "./objects/…"), and nothing else. A push without new objects (a
   * deletion, a commit the outbox already has) has none: then the outbox's own objects.
   */
  private quarantined(path: string): PushObjects {
    const { gitDir } = this.layout;
    if (path === "") return { gitDir, quarantine: `${gitDir}/objects` };
    const quarantine = path.replace(`${gitDir}/./objects/`, `${gitDir}/objects/`);
    const name = quarantine.slice(`${gitDir}/objects/`.length);
    if (!quarantine.startsWith(`${gitDir}/objects/`) || !/^tmp_objdir-incoming-[A-Za-z0-9]+$/.test(name))
      throw new Error("unexpected quarantine directory");
    return { gitDir, quarantine };
  }
}
