import { watch, type FSWatcher } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { basename, dirname } from "node:path";

/** Keys go into header values: printable ASCII only, so a key file cannot inject a header. */
const keyPattern = /^[\x21-\x7e]{1,4096}$/;

/**
 * The proxy's keys, read from the host's secret files (never from a sandbox's copy) and held in
 * memory only. Reloaded on `reload()` (SIGHUP) and when a file changes: the directories are
 * watched for an immediate reload, and every `use()` (each proxy sync, every two seconds) compares
 * each file's identity, because sops-nix and agenix replace a secret by swapping a symlinked
 * directory, which leaves a watch on the old one.
 */
export class KeyStore {
  private readonly keys = new Map<string, string>();
  private readonly watchers: FSWatcher[] = [];
  private files: Record<string, string> = {};
  /** Per secret: the file identity last read, and a load counter so a slow read never wins over a newer one. */
  private readonly seen = new Map<string, string>();
  private readonly loads = new Map<string, number>();
  reloads = 0;

  constructor(private readonly log: (line: string) => void) {}

  /** The key of a secret, or undefined when its file could not be read or is not a key. */
  get(secret: string): string | undefined {
    return this.keys.get(secret);
  }

  /**
   * Sets the secrets to serve (name → host file): new files are watched and all keys read; the
   * same files again re-read only the keys whose file is no longer the one last read.
   */
  async use(files: Record<string, string>): Promise<void> {
    if (JSON.stringify(files) === JSON.stringify(this.files)) return this.reloadChanged();
    this.files = { ...files };
    this.unwatch();
    for (const dir of new Set(Object.values(files).map((path) => dirname(path)))) {
      try {
        const watcher = watch(dir, { persistent: false }, (_event, name) => void this.changed(dir, name));
        watcher.on("error", () => undefined);
        this.watchers.push(watcher);
      } catch (error) {
        this.log(
          `cannot watch ${dir} for key changes (${(error as NodeJS.ErrnoException).code ?? String(error)}); changes are noticed within 2 s, or at once on SIGHUP`,
        );
      }
    }
    await this.reload();
  }

  /** Reads every key again. */
  async reload(): Promise<void> {
    this.reloads += 1;
    await Promise.all(Object.keys(this.files).map((secret) => this.load(secret)));
    for (const secret of [...this.keys.keys()]) if (!(secret in this.files)) this.keys.delete(secret);
  }

  close(): void {
    this.unwatch();
  }

  /** Reloads the keys whose files are not the ones last read (a new inode, size or time). */
  private async reloadChanged(): Promise<void> {
    for (const secret of Object.keys(this.files)) {
      if ((await this.identity(secret)) !== this.seen.get(secret)) await this.load(secret);
    }
  }

  private async identity(secret: string): Promise<string> {
    const info = await stat(this.files[secret] ?? "").catch(() => undefined);
    return info === undefined ? "absent" : `${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}`;
  }

  private unwatch(): void {
    for (const watcher of this.watchers.splice(0)) watcher.close();
  }

  private async changed(dir: string, name: string | Buffer | null): Promise<void> {
    const file = name === null ? null : name.toString();
    for (const [secret, path] of Object.entries(this.files)) {
      if (dirname(path) === dir && (file === null || basename(path) === file || file.startsWith("..")))
        await this.load(secret);
    }
  }

  private async load(secret: string): Promise<void> {
    const path = this.files[secret];
    if (path === undefined) return;
    const load = (this.loads.get(secret) ?? 0) + 1;
    this.loads.set(secret, load);
    const identity = await this.identity(secret);
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      if (this.loads.get(secret) !== load) return;
      this.seen.set(secret, identity);
      this.keys.delete(secret);
      return this.log(
        `key "${secret}" cannot be read from ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      );
    }
    if (this.loads.get(secret) !== load) return;
    this.seen.set(secret, identity);
    // Like the wrappers' "$(<file)": trailing newlines are not part of the key.
    const key = text.replace(/[\r\n]+$/, "");
    if (!keyPattern.test(key)) {
      this.keys.delete(secret);
      return this.log(`key "${secret}" in ${path} is not one line of printable ASCII; not used`);
    }
    this.keys.set(secret, key);
  }
}
