import { stat } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../../core/write-file-atomic.js";
import { gatedRemotes } from "./gated-remotes.js";
import { sandboxGitConfig, type GatedRemote, type SandboxGatePaths } from "./sandbox-git-config.js";
import type { GateUser } from "./user-git.js";

/**
 * The remotes the gate stands in for, kept current while the sandbox runs: the user may add a
 * remote or change a push URL at any time. `refresh` stats the repository's config file and only
 * when it changed (inode, size, times) reads the remotes again, as the user, and rewrites the
 * file the sandbox's git config includes (root's, 0640 with the agent's group, in the gate's root-owned socket
 * directory, replaced whole by a rename, so the sandbox's git never reads half of it).
 */
export class LiveRemotes {
  private remotes: GatedRemote[] = [];
  /** What the config file looked like when last read; undefined: never read. */
  private seen: string | undefined;
  /** Refreshes run one at a time (a push's and the daemon's may meet). */
  private turn: Promise<void> = Promise.resolve();

  constructor(
    private readonly user: GateUser,
    /** The user's repository (null: the workspace has none, so no remotes). */
    private readonly gitDir: string | null,
    /** Where the include file goes (OutboxLayout.remotesConfig). */
    private readonly file: string,
    /** The sandbox agent's group: the file is root's, 0640, theirs to read (a push URL may carry a token). */
    private readonly readerGid: number,
    /** Where the sandbox finds the relay and the socket. */
    private readonly where?: SandboxGatePaths,
  ) {}

  /** The remotes as last read. */
  current(): GatedRemote[] {
    return [...this.remotes];
  }

  /** Reads the remotes again and rewrites the include file if the repository's config changed. */
  refresh(): Promise<void> {
    const next = this.turn.then(() => this.refreshNow());
    this.turn = next.catch(() => undefined);
    return next;
  }

  /**
   * The remote named `name` as the user's config says now (refreshed first), or undefined. The
   * sandbox names only the remote; its URL is the user's. A failed refresh answers from the last
   * reading.
   */
  async find(name: string): Promise<GatedRemote | undefined> {
    await this.refresh().catch(() => undefined);
    return this.remotes.find((remote) => remote.name === name);
  }

  private async refreshNow(): Promise<void> {
    const now = await this.configIdentity();
    if (now === this.seen) return;
    // Stat first, then read: a change in between is seen by the next refresh.
    this.remotes = this.gitDir === null ? [] : await gatedRemotes(this.user, this.gitDir);
    await writeFileAtomic(this.file, sandboxGitConfig(this.remotes, this.where), 0o640, this.readerGid);
    this.seen = now;
  }

  /** The config file's identity and times ("none" when it is missing): git rewrites it by a rename. */
  private async configIdentity(): Promise<string> {
    if (this.gitDir === null) return "none";
    const info = await stat(join(this.gitDir, "config"), { bigint: true }).catch(() => undefined);
    return info === undefined ? "none" : `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
  }
}
