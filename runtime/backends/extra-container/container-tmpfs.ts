import { readFile } from "node:fs/promises";
import type { TmpfsCaps } from "../../cgroups/tmpfs-caps.js";
import { resizeTmpfs } from "../../mounts/host-mounts.js";

/** The writable tmpfs mounts of a NixOS container, each with its share of the memory limit. */
const cappedMounts: readonly (readonly [string, keyof TmpfsCaps])[] = [
  ["/run", "run"],
  ["/tmp", "tmp"],
  ["/dev/shm", "devShm"],
];

/**
 * Caps a running NixOS container's /run, /tmp and /dev/shm below its unit's MemoryMax
 * (tmpfs-caps.ts says why: a full tmpfs is then ENOSPC, not an OOM kill). nspawn sizes them from
 * the host's RAM, and NixOS's stage 2 in a container (boot.isNspawnContainer) remounts none of
 * them (nixos/modules/tasks/filesystems.nix), so each is resized in place as the container's init
 * sees it (its mount namespace and root), its flags kept; a /tmp that boot.tmp.useTmpfs mounted
 * gets the same cap. A path that is no tmpfs there (a template's /tmp on the container's disk, or
 * no mount at all) holds no memory pages, so there is nothing to cap and it is left alone (the
 * helper refuses anything but a tmpfs, should the mount change between the look and the resize).
 * The container's root is its directory on the host's disk, not a tmpfs: caps.root is not used.
 *
 * @example capContainerTmpfs(leader, tmpfsCaps("1G")) // /run 64 MiB, /tmp 256 MiB, /dev/shm 128 MiB
 */
export async function capContainerTmpfs(leaderPid: number, caps: TmpfsCaps): Promise<void> {
  const mountinfo = await readFile(`/proc/${leaderPid}/mountinfo`, "utf8");
  for (const [path, cap] of cappedMounts)
    if (fsTypeAt(mountinfo, path) === "tmpfs") await resizeTmpfs(leaderPid, path, caps[cap]);
}

/** The type of the filesystem mounted at `point` (a path without escapes), or undefined when none is. */
function fsTypeAt(mountinfo: string, point: string): string | undefined {
  let type: string | undefined;
  // id parent major:minor root point options [optional…] - fstype source superoptions; the
  // last mount listed at a point is the one on top, the one the path resolves to.
  for (const line of mountinfo.split("\n")) {
    const [left = "", right = ""] = line.split(" - ");
    if (left.split(" ")[4] === point) type = right.split(" ")[0];
  }
  return type;
}
