import type { AskApproval } from "../gates/approvals/approval.js";
import type { RuntimeContext } from "../core/context.js";
import { startPushGateFor } from "../gates/push-gate/sandbox-push-gate.js";
import { isRunning } from "../sandbox/start-stop.js";
import { startSandboxSshAgent } from "../gates/ssh-agent/sandbox-ssh-agent.js";
import type { SandboxMetadata } from "../state/metadata.js";
import { listMetadata } from "../state/metadata-store.js";

/** A host-side service of one sandbox that the daemon runs while the sandbox runs. */
interface Service {
  what: string;
  close(): Promise<void>;
  /** Catches up with what changed on the host while it runs (cheap when nothing did): every round. */
  refresh(): Promise<void>;
}

/** The services of one run of a sandbox: started once per start (its startedAt), whether or not they came up. */
interface Started {
  run: string;
  services: Service[];
}

/**
 * The host-side services of running sandboxes that live in the daemon: each sandbox's SSH agent
 * (metadata sshAgent) and push gate (metadata pushGate). `reconcile` starts them for every
 * sandbox that runs and wants them, once per start (a sandbox restarted, reset or started again
 * gets fresh ones: its startedAt changed), and closes those of sandboxes that no longer run or
 * are gone. The sandbox's binds and home seed were made at provision time, so a container starts
 * whether or not they are up yet. A service that fails to start is logged, and tried again only
 * at the sandbox's next start. Every round also refreshes the running ones (the push gate reads
 * the repository's remotes again when its config changed). Every question they have goes to
 * `ask` (the approvals queue).
 */
export class SandboxServices {
  private readonly started = new Map<string, Started>();
  /** The round under way (rounds never overlap), and one queued behind it (shared by its callers). */
  private current: Promise<void> = Promise.resolve();
  private queued: Promise<void> | undefined;

  constructor(
    private readonly ask: AskApproval,
    private readonly log: (line: string) => void,
  ) {}

  /** One round: the services made to match the sandboxes' metadata now. Never rejects (failures are logged). */
  reconcile(context: RuntimeContext): Promise<void> {
    // A round not yet begun reads the metadata when it begins: it serves this caller too.
    if (this.queued !== undefined) return this.queued;
    const next = this.current.then(() => {
      this.queued = undefined;
      return this.round(context).catch((error: unknown) => this.log(`sandbox services: ${messageOf(error)}`));
    });
    this.queued = next;
    this.current = next;
    return next;
  }

  /** Closes every service (the daemon's shutdown); their sandboxes keep running. */
  async close(): Promise<void> {
    await this.current;
    await Promise.all([...this.started.keys()].map((name) => this.stop(name)));
  }

  private async round(context: RuntimeContext): Promise<void> {
    const wanted = new Map<string, SandboxMetadata>();
    for (const metadata of await listMetadata(context.paths)) {
      if (metadata.sshAgent === null && metadata.pushGate === null) continue;
      if (metadata.startedAt === null || !(await isRunning(context, metadata))) continue;
      wanted.set(metadata.name, metadata);
    }
    for (const [name, { run }] of this.started) {
      const now = wanted.get(name);
      if (now === undefined || runOf(now) !== run) await this.stop(name);
    }
    for (const [name, metadata] of wanted) {
      const started = this.started.get(name);
      if (started === undefined)
        this.started.set(name, { run: runOf(metadata), services: await this.start(context, metadata) });
      else await this.refresh(name, started.services);
    }
  }

  /** Refreshes a sandbox's running services; one that fails is logged and stays up. */
  private async refresh(name: string, services: readonly Service[]): Promise<void> {
    for (const service of services) {
      await service
        .refresh()
        .catch((error: unknown) => this.log(`${service.what} of ${name} could not refresh: ${messageOf(error)}`));
    }
  }

  /** The sandbox's services, each started on its own: one that fails leaves the others up. */
  private async start(context: RuntimeContext, metadata: SandboxMetadata): Promise<Service[]> {
    const services: Service[] = [];
    const attempt = async (
      what: string,
      start: () => Promise<{ close(): Promise<void>; refresh?(): Promise<void> } | null>,
    ): Promise<void> => {
      try {
        const started = await start();
        if (started === null) return;
        services.push({ what, close: () => started.close(), refresh: () => started.refresh?.() ?? Promise.resolve() });
        this.log(`${what} of ${metadata.name} started`);
      } catch (error) {
        this.log(`${what} of ${metadata.name} not started: ${messageOf(error)}`);
      }
    };
    // The config's approvals.deadline: the gates' messages say how long they waited.
    const deadlineMs = context.settings.host.approvals.deadline * 1000;
    await attempt("ssh agent", () => startSandboxSshAgent(context, metadata, { ask: this.ask, deadlineMs }));
    await attempt("push gate", () => startPushGateFor(context, metadata, this.ask, deadlineMs));
    return services;
  }

  /** Closes a sandbox's services (before any new ones take their sockets). */
  private async stop(name: string): Promise<void> {
    const started = this.started.get(name);
    this.started.delete(name);
    for (const service of started?.services ?? []) {
      await service.close().then(
        () => this.log(`${service.what} of ${name} closed`),
        (error: unknown) => this.log(`${service.what} of ${name} did not close cleanly: ${messageOf(error)}`),
      );
    }
  }
}

/** One run of a sandbox: its name and when it started. */
function runOf(metadata: SandboxMetadata): string {
  return `${metadata.name}@${metadata.startedAt ?? ""}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
