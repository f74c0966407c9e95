/** How long a later lookup waits for the held lookups of a fresh approval to pin their answers first. */
const freshWaitMs = 5000;

/**
 * An approval not yet applied to an answer: the lookups held while the human was asked (the
 * resolver's retries, the AAAA beside the A) pin the addresses of their answers, which is what
 * the human approved (nothing was sent upstream before). It closes once every such lookup has
 * answered.
 */
export class FreshApproval {
  private lookups = 0;
  private opened = false;
  private finish: () => void = () => undefined;
  /** Resolves once every held lookup has pinned its answer (or given up). */
  readonly done = new Promise<void>((resolve) => (this.finish = resolve));

  constructor(readonly untilMs: number) {}

  /** One held lookup joins; false once the approval has closed (it is then a later lookup). */
  join(): boolean {
    if (this.opened && this.lookups === 0) return false;
    this.opened = true;
    this.lookups++;
    return true;
  }

  /** One held lookup has answered. */
  leave(): void {
    if (--this.lookups === 0) this.finish();
  }

  get open(): boolean {
    return !this.opened || this.lookups > 0;
  }
}

/**
 * One name admitted when asked (network ask mode): the port the human was shown, and each address
 * approved for it with the end of its approval (Infinity: while the sandbox runs). Nothing else
 * of the name is admitted: another port is not, and an answer with another address asks again.
 */
export class HostAdmission {
  private readonly until = new Map<string, number>();
  private fresh: FreshApproval | null = null;

  constructor(
    readonly name: string,
    readonly port: number,
    private readonly now: () => number,
  ) {}

  /** Opens a fresh approval (see FreshApproval) ending at `untilMs`. */
  approve(untilMs: number): FreshApproval {
    this.fresh = new FreshApproval(untilMs);
    return this.fresh;
  }

  /** Waits (a while at most) for a fresh approval's held lookups to pin their answers. */
  async settled(): Promise<void> {
    if (this.fresh === null || !this.fresh.open) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.fresh.done, new Promise<void>((resolve) => (timer = setTimeout(resolve, freshWaitMs)))]);
    clearTimeout(timer);
  }

  /** Admits `addresses` until `untilMs` (an address approved twice keeps the later end). */
  pin(addresses: readonly string[], untilMs: number): void {
    for (const address of addresses) this.until.set(address, Math.max(untilMs, this.until.get(address) ?? 0));
  }

  /** When the approval of `address` ends, if it is admitted now. */
  untilOf(address: string): number | undefined {
    const untilMs = this.until.get(address);
    return untilMs !== undefined && untilMs > this.now() ? untilMs : undefined;
  }

  /** The addresses admitted now, with their ends. */
  addresses(): { address: string; untilMs: number }[] {
    return [...this.until]
      .filter(([, untilMs]) => untilMs > this.now())
      .map(([address, untilMs]) => ({ address, untilMs }));
  }

  /** Whether the name may still be looked up unasked: an address still admitted, or a fresh approval still pinning. */
  live(): boolean {
    const now = this.now();
    if (this.fresh !== null && this.fresh.open && this.fresh.untilMs > now) return true;
    return [...this.until.values()].some((untilMs) => untilMs > now);
  }

  /** Drops the addresses whose approval has ended, and returns them. */
  expire(): string[] {
    const now = this.now();
    const ended = [...this.until].filter(([, untilMs]) => untilMs <= now).map(([address]) => address);
    for (const address of ended) this.until.delete(address);
    return ended;
  }
}
