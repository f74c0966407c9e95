import { parseSize } from "./sizes.js";

/** Sizes in bytes of the tmpfs mounts a sandbox can write to. */
export interface TmpfsCaps {
  /** The ephemeral root: /home, /root, /var/tmp, the generated /etc. */
  root: number;
  tmp: number;
  devShm: number;
  /** /run of a host root: sshd's and tmux's few files; only root inside writes there. */
  run: number;
}

const mebi = 1024 ** 2;
/** Without a memory limit: what an agent's caches and builds need, far below the host's RAM. */
const ceilings: TmpfsCaps = { root: 2048 * mebi, tmp: 1024 * mebi, devShm: 512 * mebi, run: 64 * mebi };
/** Shares of memoryMax (1/2 + 1/4 + 1/8 + 1/16): full tmpfs mounts still leave a sixteenth for processes. */
const shares: TmpfsCaps = { root: 1 / 2, tmp: 1 / 4, devShm: 1 / 8, run: 1 / 16 };

/**
 * How big each writable tmpfs of a sandbox may grow. nspawn's own /tmp and /dev/shm are sized
 * from the host's RAM (2.4 GB each on a 24 GB host) and not part of the root's size. tmpfs pages
 * count toward the memory limit of whoever wrote them, so a tmpfs larger than memoryMax turns a
 * full disk into an OOM kill of the sandbox's processes (nspawn first: it is the largest); capped
 * below the limit, a write that does not fit fails with ENOSPC, which tools handle.
 *
 * @example tmpfsCaps("4G") // { root: 2 GiB, tmp: 1 GiB, devShm: 512 MiB, run: 64 MiB }
 */
export function tmpfsCaps(memoryMax: string | null): TmpfsCaps {
  if (memoryMax === null) return ceilings;
  const limit = parseSize(memoryMax);
  // Page-aligned and at least 1 MiB: mount rounds sizes up to pages, and 0 would mean unlimited.
  const share = (key: keyof TmpfsCaps): number =>
    Math.max(mebi, Math.min(ceilings[key], Math.floor((limit * shares[key]) / 4096) * 4096));
  return { root: share("root"), tmp: share("tmp"), devShm: share("devShm"), run: share("run") };
}
