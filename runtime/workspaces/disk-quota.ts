import { mkdtemp, rename, rmdir } from "node:fs/promises";
import { join } from "node:path";
import { runCommand } from "../core/run-command.js";
import { parseSize } from "../cgroups/sizes.js";
import { SandboxError } from "../core/errors.js";

/**
 * The disk limit of one workspace forage-ctl made: a btrfs subvolume with a qgroup limit, known
 * by its subvolume id on the filesystem mounted at `filesystem`. Recorded when it is made (the
 * path is the owner's afterwards: it is removed by id, never by a path the owner could swap).
 */
export interface DiskQuota {
  bytes: number;
  subvolumeId: number;
  filesystem: string;
}

/** Where quota'd workspaces go: the btrfs filesystem holding the state directory, and the limit. */
export interface QuotaPlan {
  bytes: number;
  filesystem: string;
}

/**
 * Checks that workspaces under `dir` can have a `maxSize` limit: `dir` is on btrfs, and quotas
 * are enabled there. Quotas are never enabled here: that is a host-wide change with a cost on
 * every write to the filesystem, the host's administrator decides it.
 *
 * @example await quotaPlan("/var/lib/forage/workspaces", "10G") // → { bytes: 10737418240, filesystem: "/var/lib" }
 */
export async function quotaPlan(dir: string, maxSize: string): Promise<QuotaPlan> {
  const { fsType, filesystem } = await mountOf(dir);
  if (fsType !== "btrfs") {
    throw new SandboxError(
      `workspace.maxSize is set, but ${dir} is on ${fsType}, not btrfs (the only filesystem forage-ctl sets a workspace limit on): put the state directory (FORAGE_STATE_DIR) on btrfs, or remove workspace.maxSize from the template`,
      "config",
    );
  }
  const shown = await btrfs(["qgroup", "show", filesystem]);
  if (shown.exitCode !== 0) {
    throw new SandboxError(
      `workspace.maxSize is set, but quotas are not enabled on the btrfs filesystem at ${filesystem} (${lastLine(shown.stderr)}): enable them with \`btrfs quota enable ${filesystem}\` (a host-wide setting, with a cost on writes), or remove workspace.maxSize from the template`,
      "config",
    );
  }
  return { bytes: parseSize(maxSize), filesystem };
}

/**
 * Makes `target` (which must not exist) a btrfs subvolume limited to `plan.bytes`: writes past it
 * fail with EDQUOT. It is made, measured and limited in a fresh root-only directory under
 * `staging`, then renamed into place: `target`'s parent may be the owner's, who could swap a
 * new entry there for another subvolume before its id is read.
 */
export async function createQuotaSubvolume(target: string, plan: QuotaPlan, staging: string): Promise<DiskQuota> {
  const stage = await mkdtemp(join(staging, ".new-"));
  try {
    const made = join(stage, "subvolume");
    await mustRun(["subvolume", "create", made]);
    const quota = {
      bytes: plan.bytes,
      subvolumeId: Number((await mustRun(["inspect-internal", "rootid", made])).trim()),
      filesystem: plan.filesystem,
    };
    try {
      await mustRun(["qgroup", "limit", String(plan.bytes), made]);
      await rename(made, target);
    } catch (error) {
      await dropQuotaSubvolume(quota).catch(() => undefined);
      throw error;
    }
    return quota;
  } finally {
    await rmdir(stage).catch(() => undefined);
  }
}

/**
 * Deletes a workspace's subvolume (by id: the owner's `rm -rf` has usually removed it already, an
 * empty subvolume goes with rmdir) and its qgroup, once the kernel has dropped the subvolume
 * (6.18 removes that qgroup itself; older kernels keep it). Done again, it changes nothing.
 */
export async function dropQuotaSubvolume(quota: DiskQuota): Promise<void> {
  const id = String(quota.subvolumeId);
  const deleted = await btrfs(["subvolume", "delete", "--subvolid", id, quota.filesystem]);
  if (deleted.exitCode !== 0 && !gone(deleted.stderr))
    throw new SandboxError(
      `could not delete btrfs subvolume ${id} on ${quota.filesystem}: ${lastLine(deleted.stderr)}`,
      "general",
    );
  // A commit wakes the cleaner that drops deleted subvolumes; without one, the wait is ~30 s.
  await mustRun(["filesystem", "sync", quota.filesystem]);
  await mustRun(["subvolume", "sync", quota.filesystem, id]);
  const destroyed = await btrfs(["qgroup", "destroy", `0/${id}`, quota.filesystem]);
  if (destroyed.exitCode !== 0 && !gone(destroyed.stderr))
    throw new SandboxError(
      `could not remove btrfs qgroup 0/${id} on ${quota.filesystem}: ${lastLine(destroyed.stderr)}`,
      "general",
    );
}

/** Bytes the workspace's subvolume holds now (its qgroup's referenced bytes), or null if unknown. */
export async function quotaUsage(quota: DiskQuota): Promise<number | null> {
  const shown = await btrfs(["qgroup", "show", "--raw", quota.filesystem]);
  if (shown.exitCode !== 0) return null;
  const row = shown.stdout
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .find((cells) => cells[0] === `0/${quota.subvolumeId}`);
  return row?.[1] === undefined ? null : Number(row[1]);
}

/** The type and mount point of the filesystem holding `dir` (JSON: a mount point may hold spaces). */
async function mountOf(dir: string): Promise<{ fsType: string; filesystem: string }> {
  const found = await runCommand("findmnt", ["--json", "--output", "FSTYPE,TARGET", "--target", dir], {
    reject: false,
  });
  const entry =
    found.exitCode === 0
      ? (JSON.parse(found.stdout) as { filesystems?: { fstype?: string; target?: string }[] }).filesystems?.[0]
      : undefined;
  if (entry?.fstype === undefined || entry.target === undefined)
    throw new SandboxError(
      `workspace.maxSize: cannot tell the filesystem of ${dir}: ${found.stderr.trim()}`,
      "general",
    );
  return { fsType: entry.fstype, filesystem: entry.target };
}

async function btrfs(args: string[]) {
  const result = await runCommand("btrfs", args, { reject: false, cwd: "/" });
  if (result.spawnError !== undefined)
    throw new SandboxError(
      `workspace.maxSize needs the btrfs command, which did not run (${result.spawnError.code ?? result.spawnError.message}): install btrfs-progs`,
      "config",
    );
  return result;
}

async function mustRun(args: string[]): Promise<string> {
  const result = await btrfs(args);
  if (result.exitCode !== 0)
    throw new SandboxError(
      `btrfs ${args.slice(0, 2).join(" ")} failed: ${lastLine(result.stderr || result.stdout)}`,
      "general",
    );
  return result.stdout;
}

function gone(stderr: string): boolean {
  return stderr.includes("No such file or directory");
}

function lastLine(text: string): string {
  return text.trim().split("\n").at(-1) ?? "";
}
