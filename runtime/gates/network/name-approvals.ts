import { parseAllowEntry } from "../../../generator/model/allow-rule.js";
import type { AllowRule } from "../../../generator/model/model.js";
import { allowEntry } from "../../../generator/config/schema/allow-entry.js";
import { isApproved, type ApprovalDecision, type AskApproval, type HostSubject } from "../approvals/approval.js";
import { HostAdmission, type FreshApproval } from "./host-admission.js";

/** How long a name (or address) nobody answered for stays refused without asking again (its client retries). */
const expiredQuietMs = 5 * 60_000;
/** Names admitted per sandbox run; past this, a sandbox must be given an allowlist. */
const maxAdmitted = 512;
/** Questions one sandbox may have open at once: a sandbox asking about random names must not flood the human. */
const maxPending = 8;
/** The most addresses a question shows (approval-schema.ts holds a request to it). */
const maxShownAddresses = 64;
/**
 * The port an asked name is admitted on. The DNS filter that asks sees no port (a lookup names
 * none), so the question names the one agents reach for, HTTPS; a name needed on another port
 * goes on the allowlist as name:port.
 */
export const askedPort = 443;

/** What a lookup of a name the allowlist does not name may do. */
export type NameOutcome = { refused: string } | { policy: true } | { lookup: AdmittedLookup };

/** A lookup of an admitted name: its answer's addresses are admitted only as far as the human approved them. */
export interface AdmittedLookup {
  readonly port: number;
  /** Each of the answer's addresses with the end of its approval, asking about any not approved; or the refusal. */
  admit(addresses: readonly string[]): Promise<{ refused: string } | { untilMs: ReadonlyMap<string, number> }>;
  /** The lookup is over (answered, or not): always called once. */
  close(): void;
}

export interface NameApprovalsDeps {
  sandbox: string;
  ask: AskApproval;
  /** Adds an entry (`name:port`) to the sandbox's own allowlist (its metadata) for `always`; false when it could not. */
  persist: (entry: string) => Promise<boolean>;
  /** Called when the admitted names change: the guard rebuilds the policy its filter and gate read. */
  changed: () => void;
  log: (line: string) => void;
  now?: () => number;
}

type Asked = { refused: string } | { policy: true } | { admission: HostAdmission; fresh: FreshApproval };

/**
 * A sandbox's answers about names outside its allowlist (network ask mode). A question names the
 * name and the port (askedPort); nothing is sent upstream before the human answers, and what is
 * admitted is what the approval covers: that name, on that port, at the addresses of the answers
 * to the lookups held for the question, for as long as the answer said (`once`: while the sandbox
 * runs; `for`: until then). A later answer with an address not approved asks again, showing the
 * answer's addresses and those approved before; `always` writes `name:port` to the sandbox's
 * allowlist instead (from then on an allow entry like any other). Refusals are remembered so a
 * retrying client does not ask again: a denial for the run, an unanswered question a few minutes.
 */
export class NameApprovals {
  private readonly pending = new Map<string, Promise<Asked>>();
  private readonly admissions = new Map<string, HostAdmission>();
  /** Questions about a changed answer, one per name at a time. */
  private readonly repointing = new Map<string, Promise<unknown>>();
  /** Names approved `always` and written to the sandbox's allowlist: rules of the policy from now on. */
  private readonly kept = new Map<string, AllowRule>();
  private readonly refused = new Map<string, { rule: string; untilMs: number }>();
  private readonly now: () => number;

  constructor(private readonly deps: NameApprovalsDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Allow rules for the names approved `always` this run (`name:port`), which the allowlist now holds too. */
  rules(): AllowRule[] {
    return [...this.kept.values()];
  }

  /** The names admitted now that last only for this run (`once`, `for`, or an `always` that could not be written). */
  forThisRun(): string[] {
    return [...this.admissions.values()].filter((admission) => admission.live()).map((admission) => admission.name);
  }

  /** What is admitted now, name by name: its port and addresses, each with its end (null: while the sandbox runs). */
  view(): { name: string; port: number; addresses: { address: string; until: string | null }[] }[] {
    return [...this.admissions.values()].map((admission) => ({
      name: admission.name,
      port: admission.port,
      addresses: admission.addresses().map(({ address, untilMs }) => ({
        address,
        until: untilMs === Infinity ? null : new Date(untilMs).toISOString(),
      })),
    }));
  }

  /** The addresses `name` is admitted at on `port` now (the name gate connects to no other), or null. */
  admittedAt(name: string, port: number): ReadonlySet<string> | null {
    const admission = this.admissions.get(name);
    if (admission === undefined || admission.port !== port) return null;
    return new Set(admission.addresses().map(({ address }) => address));
  }

  /** Drops the approvals whose time is up: each name's ended addresses (to leave the sets), and names left with none. */
  expire(): { name: string; port: number; addresses: string[] }[] {
    const ended: { name: string; port: number; addresses: string[] }[] = [];
    for (const [name, admission] of [...this.admissions]) {
      const addresses = admission.expire();
      if (addresses.length > 0) ended.push({ name, port: admission.port, addresses });
      if (!admission.live()) this.admissions.delete(name);
    }
    if (ended.length > 0) this.deps.changed();
    return ended;
  }

  /** Decides a lookup of `name`, asking the human when nothing decided it before. */
  async decide(name: string): Promise<NameOutcome> {
    if (this.kept.has(name)) return { policy: true };
    const admission = this.admissions.get(name);
    if (admission?.live() === true) return { lookup: this.lookupOf(admission, null) };
    const refusal = this.refused.get(name);
    if (refusal !== undefined && refusal.untilMs > this.now()) return { refused: refusal.rule };
    let asked = this.pending.get(name);
    if (asked === undefined) {
      // Only an exact host name that could go on an allowlist is worth a question: a query for
      // "*.example.org" (a legal DNS label) must not become a wildcard, nor "x:443" a port rule.
      if (!/^[a-z0-9.-]+$/.test(name) || !allowEntry.safeParse(name).success)
        return { refused: "ask: not a host name" };
      if (this.pending.size + this.repointing.size >= maxPending)
        return { refused: `ask: ${maxPending} questions already open` };
      asked = this.ask(name).finally(() => this.pending.delete(name));
      this.pending.set(name, asked);
    }
    const outcome = await asked;
    if (!("admission" in outcome)) return outcome;
    // A lookup held for the question pins its answer; one that comes after the held ones have answered is a later lookup.
    return { lookup: this.lookupOf(outcome.admission, outcome.fresh.join() ? outcome.fresh : null) };
  }

  private async ask(name: string): Promise<Asked> {
    if (this.admissions.size >= maxAdmitted)
      return { refused: `ask: ${maxAdmitted} names already admitted this run (add them to the allowlist)` };
    const answer = await this.question({ name, port: askedPort });
    if (!isApproved(answer)) return { refused: this.remember(name, answer) };
    this.refused.delete(name);
    if (answer.decision === "always" && (await this.keep(name, askedPort))) return { policy: true };
    const admission = this.admissions.get(name) ?? new HostAdmission(name, askedPort, this.now);
    this.admissions.set(name, admission);
    const fresh = admission.approve(answer.decision === "for" ? answer.untilMs : Infinity);
    this.deps.changed();
    return { admission, fresh };
  }

  private lookupOf(admission: HostAdmission, fresh: FreshApproval | null): AdmittedLookup {
    let open = true;
    return {
      port: admission.port,
      admit: async (addresses) => {
        if (fresh !== null) {
          admission.pin(addresses, fresh.untilMs);
          this.deps.changed(); // the status shows the addresses
        } else await admission.settled();
        const unapproved = addresses.filter((address) => admission.untilOf(address) === undefined);
        if (unapproved.length > 0) {
          const refusal = await this.repointed(admission, addresses, unapproved);
          if (refusal !== null) return { refused: refusal };
        }
        return { untilMs: new Map(addresses.map((address) => [address, admission.untilOf(address) ?? Infinity])) };
      },
      close: () => {
        if (open && fresh !== null) fresh.leave();
        open = false;
      },
    };
  }

  /**
   * An answer of an admitted name with addresses not approved for it (the name re-pointed, or a
   * CDN's rotation): one question per name at a time, showing the whole answer and what was
   * approved before. Null once they are approved; else the refusal, remembered per address.
   */
  private async repointed(
    admission: HostAdmission,
    addresses: readonly string[],
    unapproved: readonly string[],
  ): Promise<string | null> {
    const key = (address: string): string => `${admission.name} ${address}`;
    for (;;) {
      const remembered = unapproved
        .map((address) => this.refused.get(key(address)))
        .find((refusal) => refusal !== undefined && refusal.untilMs > this.now());
      if (remembered !== undefined) return `${remembered.rule} (${admission.name} at ${unapproved.join(", ")})`;
      const waiting = this.repointing.get(admission.name);
      if (waiting === undefined) break;
      await waiting;
      if (unapproved.every((address) => admission.untilOf(address) !== undefined)) return null;
    }
    if (this.pending.size + this.repointing.size >= maxPending) return `ask: ${maxPending} questions already open`;
    // A question shows the whole answer (the request's limit): a bigger one is not asked about.
    if (addresses.length > maxShownAddresses)
      return `ask: an answer of ${addresses.length} addresses is more than a question shows (${maxShownAddresses}): put ${admission.name} on the allowlist`;
    const approved = admission.addresses().map(({ address }) => address);
    const question = this.question({ name: admission.name, port: admission.port, addresses: [...addresses], approved });
    this.repointing.set(admission.name, question);
    const answer = await question.finally(() => this.repointing.delete(admission.name));
    if (!isApproved(answer)) {
      const rule = this.remember(null, answer);
      for (const address of unapproved)
        this.refused.set(key(address), {
          rule,
          untilMs: answer.decision === "deny" ? Infinity : this.now() + expiredQuietMs,
        });
      return `${rule} (${admission.name} at ${unapproved.join(", ")})`;
    }
    if (answer.decision === "always" && (await this.keep(admission.name, admission.port))) return null;
    admission.pin(unapproved, answer.decision === "for" ? answer.untilMs : Infinity);
    this.deps.changed();
    return null;
  }

  private question(subject: HostSubject): Promise<ApprovalDecision> {
    return this.deps
      .ask({ sandbox: this.deps.sandbox, kind: "host", subject })
      .catch((error: Error): ApprovalDecision => {
        this.deps.log(`asking about ${subject.name} failed: ${error.message}`);
        return { decision: "expired" };
      });
  }

  /** Remembers a refusal of `name` (null: an answer's addresses, which the caller remembers) and says its rule. */
  private remember(name: string | null, answer: ApprovalDecision): string {
    const rule = answer.decision === "deny" ? "denied when asked" : "not answered when asked";
    if (name !== null)
      this.refused.set(name, { rule, untilMs: answer.decision === "deny" ? Infinity : this.now() + expiredQuietMs });
    return rule;
  }

  /** `always`: `name:port` into the sandbox's allowlist; false (and logged) when it could not be written. */
  private async keep(name: string, port: number): Promise<boolean> {
    const entry = `${name}:${port}`;
    if (!(await this.deps.persist(entry))) {
      this.deps.log(
        `${entry} was approved always but could not be added to the allowlist: admitted as once, for this run only`,
      );
      return false;
    }
    this.kept.set(name, parseAllowEntry(entry));
    this.admissions.delete(name);
    this.deps.changed();
    return true;
  }
}
