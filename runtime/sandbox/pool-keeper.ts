import { readFile } from "node:fs/promises";
import type { TemplateModel } from "../../generator/model/model.js";
import type { RuntimeContext } from "../core/context.js";
import { isAlive } from "../core/process-alive.js";
import { removeSandbox } from "./down.js";
import { isRunning } from "./start-stop.js";
import { trySandboxLock } from "../state/sandbox-lock.js";
import { listMetadata, readMetadata } from "../state/metadata-store.js";
import type { SandboxMetadata } from "../state/metadata.js";
import { makeMember, memberBackend } from "./pool-make-member.js";
import { poolKey } from "./pool-key.js";

/** After a member of a template failed to start, the keeper tries that template again this much later. */
const retryAfterMs = 60_000;

/**
 * Keeps every template's warm pool at its `pool.size`, in the daemon: `nudge` after each
 * lifecycle call and on the daemon's rounds. One pass at a time (a nudge during a pass asks for
 * one more after it), never in a caller's way: a claim is answered before the pool is refilled.
 * Each pass removes stale members (template gone or changed, pool made smaller, container dead,
 * made by a process that died), then starts the missing ones one by one while the host has the
 * memory (see hostHasRoom). A template whose member failed to start is tried again a minute
 * later; what went wrong, and why a template keeps no pool, is logged once.
 */
export class PoolKeeper {
  private pass: Promise<void> | undefined;
  private again = false;
  private closing = false;
  private readonly failedUntil = new Map<string, number>();
  private readonly said = new Set<string>();

  constructor(private readonly log: (line: string) => void) {}

  /** Asks for a pass with the context in force now (the daemon's settings may have changed). */
  nudge(context: () => RuntimeContext): void {
    if (this.closing) return;
    if (this.pass !== undefined) {
      this.again = true;
      return;
    }
    this.pass = (async () => {
      do {
        this.again = false;
        await this.keep(context()).catch((error: unknown) => this.log(`pool: ${messageOf(error)}`));
      } while (this.again && !this.closing);
    })().finally(() => (this.pass = undefined));
  }

  /** Starts no more members and waits for the one being started (the daemon's shutdown); members keep running. */
  async close(): Promise<void> {
    this.closing = true;
    await this.pass;
  }

  private async keep(context: RuntimeContext): Promise<void> {
    const templates = new Map(context.settings.templates.map((template) => [template.name, template]));
    const members = (await listMetadata(context.paths)).filter((sandbox) => sandbox.pool !== undefined);
    const live: SandboxMetadata[] = [];
    for (const member of members) {
      const why = await staleBecause(context, member, templates.get(member.template));
      if (why === undefined) live.push(member);
      else if (await removeMember(context, member.name)) this.log(`pool: removed ${member.name} (${why})`);
    }
    for (const template of templates.values()) {
      const own = live.filter((member) => member.template === template.name);
      // The pool was made smaller: the members past its size go.
      for (const extra of own.slice(template.pool.size).reverse())
        if (await removeMember(context, extra.name))
          this.log(`pool: removed ${extra.name} (pool.size is ${template.pool.size})`);
      for (let have = own.length; have < template.pool.size && !this.closing; have++)
        if (!(await this.makeOne(context, template))) break;
    }
  }

  /** Starts one member, unless the template keeps no pool here, failed a moment ago, or the host lacks the memory. */
  private async makeOne(context: RuntimeContext, template: TemplateModel): Promise<boolean> {
    if ((this.failedUntil.get(template.name) ?? 0) > Date.now()) return false;
    const found = await memberBackend(context, template);
    if ("reason" in found) {
      this.once(`pool: template ${template.name} keeps no pool: ${found.reason}`);
      return false;
    }
    const room = await hostHasRoom();
    if (!room.ok) {
      this.once(`pool: template ${template.name}: no member started while ${room.why}`);
      return false;
    }
    try {
      const member = await makeMember(context, template);
      this.log(`pool: started ${member.name} for template ${template.name} (slot ${member.slot})`);
      return true;
    } catch (error) {
      this.failedUntil.set(template.name, Date.now() + retryAfterMs);
      this.log(
        `pool: template ${template.name}: a member did not start (tried again in a minute): ${messageOf(error)}`,
      );
      return false;
    }
  }

  private once(line: string): void {
    if (this.said.has(line)) return;
    this.said.add(line);
    this.log(line);
  }
}

/** Why a member must go, or undefined when it may wait on to be claimed. */
async function staleBecause(
  context: RuntimeContext,
  member: SandboxMetadata,
  template: TemplateModel | undefined,
): Promise<string | undefined> {
  if (template === undefined) return `template ${member.template} is gone from the config`;
  if (template.pool.size === 0) return `template ${template.name} keeps no pool now`;
  if (member.pool?.key !== poolKey(context, template)) return `template ${template.name} changed since it started`;
  // The host's choice of runtime can change (a prebuilt system installed): up would pass it over.
  const found = await memberBackend(context, template);
  if ("reason" in found || found.backend.name !== member.runtime)
    return `template ${template.name}'s sandboxes no longer start on ${member.runtime}`;
  if (member.phase === "creating")
    return isAlive(member.creatorPid) ? undefined : `the process that started it (pid ${member.creatorPid}) died`;
  return (await isRunning(context, member)) ? undefined : "its container is gone";
}

/**
 * Removes a member under its lock, not waited for (one an `up` is taking, or still being made,
 * is left alone), and only while it is still a member. True when it went.
 */
async function removeMember(context: RuntimeContext, name: string): Promise<boolean> {
  const removed = await trySandboxLock(context, name, async () => {
    const member = await readMetadata(context.paths, name);
    if (member?.pool === undefined) return false;
    await removeSandbox(context, name, 1);
    return true;
  });
  return removed === true;
}

/**
 * Whether the host can spare a member's memory: one is started only while at least 512 MiB and a
 * tenth of the host's memory stay available (MemAvailable). An idle member uses a few MiB; the
 * reserve is for what a claimed one's agent will use (up to its template's memory limit).
 */
export async function hostHasRoom(meminfo = "/proc/meminfo"): Promise<{ ok: true } | { ok: false; why: string }> {
  const text = await readFile(meminfo, "utf8");
  const kib = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(text)?.[1] ?? NaN);
  const available = kib("MemAvailable");
  const total = kib("MemTotal");
  if (!Number.isFinite(available) || !Number.isFinite(total)) return { ok: true };
  const reserve = Math.max(512 * 1024, total / 10);
  return available >= reserve
    ? { ok: true }
    : {
        ok: false,
        why: `the host has ${Math.round(available / 1024)} MiB available, below the ${Math.round(reserve / 1024)} MiB kept free`,
      };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
