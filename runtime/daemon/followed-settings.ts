import { stat } from "node:fs/promises";
import type { Model } from "../../generator/model/model.js";
import { UserError } from "../core/errors.js";

/** What a request of the user's runs with: the settings in force, and the edit not taken (if any). */
export interface SettingsInForce {
  settings: Model;
  /** Why the file's latest edit is not in force (its positioned errors), or what of it waits for the daemon's restart; or undefined. */
  problem: string | undefined;
}

/** One load of the file, or throws a UserError (the file's problems, positioned). */
export type SettingsLoader = () => Promise<Model>;

/**
 * The settings the daemon serves its user, following the file root started it with: each
 * request costs one stat, and only a file that changed since the last load is read again (a
 * TypeScript config runs as the configured user then: see settings-loader.ts). An edit with
 * errors keeps the last good settings, and every request hears why until the file is fixed.
 */
export class FollowedSettings {
  private key: string;
  private inForce: SettingsInForce;
  private loading: Promise<SettingsInForce> | undefined;

  /**
   * The settings of the daemon's start, whose user (its socket's owner), stateDir and
   * network.base (running sandboxes' links and tables were made from it) stay until it restarts.
   */
  private readonly start: Model;

  constructor(
    private readonly path: string,
    settings: Model,
    key: string,
    private readonly load: SettingsLoader,
  ) {
    this.key = key;
    this.start = settings;
    this.inForce = { settings, problem: undefined };
  }

  /** The settings in force now, read again first when the file changed. */
  async current(): Promise<SettingsInForce> {
    const key = await fileKey(this.path);
    if (key === this.key) return this.inForce;
    // Requests arriving together share one load.
    this.loading ??= this.reload(key).finally(() => (this.loading = undefined));
    return this.loading;
  }

  /** The last settings in force, without a look at the file (the daemon's own rounds). */
  get latest(): Model {
    return this.inForce.settings;
  }

  /** Root's request read the file itself (as root's command does): those settings are the file's. */
  adopt(key: string, settings: Model): void {
    this.key = key;
    this.inForce = this.inForceOf(settings);
  }

  /** The edited settings but what the daemon keeps from its start, and a word when that differs. */
  private inForceOf(edited: Model): SettingsInForce {
    const { user, stateDir, network } = this.start.host;
    const kept = { user, stateDir, "network.base": network.base };
    const now = { user: edited.host.user, stateDir: edited.host.stateDir, "network.base": edited.host.network.base };
    const changed = Object.keys(kept).filter(
      (name) => kept[name as keyof typeof kept] !== now[name as keyof typeof now],
    );
    const settings = {
      ...edited,
      host: { ...edited.host, user, stateDir, network: { ...edited.host.network, base: network.base } },
    };
    const problem =
      changed.length === 0
        ? undefined
        : `${this.path} changes ${changed.join(", ")}: the daemon keeps what it started with until it restarts (sudo forage-ctl daemon --stop, then sudo forage-ctl up)`;
    return { settings, problem };
  }

  private async reload(key: string): Promise<SettingsInForce> {
    try {
      this.inForce = this.inForceOf(await this.load());
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      const report = error.report("forage-ctl").trimEnd();
      const problem = `${this.path} changed, but its settings are not taken (the last good ones stay in force until it is fixed):\n${report}`;
      this.inForce = { ...this.inForce, problem };
    }
    // Taken before the load: an edit made during it is read by the next request.
    this.key = key;
    return this.inForce;
  }
}

/**
 * What identifies one version of the file: its inode, size, and change times (ctime too: nobody
 * sets it back, unlike mtime). A missing file has a key of its own, so its return is read again.
 */
export async function fileKey(path: string): Promise<string> {
  const info = await stat(path, { bigint: true }).catch(() => undefined);
  if (info === undefined) return "missing";
  return [info.dev, info.ino, info.size, info.mtimeNs, info.ctimeNs].join(":");
}
