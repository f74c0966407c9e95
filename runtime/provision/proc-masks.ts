import type { Bind } from "../core/bind.js";

/**
 * /proc files every sandbox sees masked, on every runtime: /proc/keys lists each key its reader
 * may view, and the agent has the host user's uid, so it listed the names of the keys in that
 * user's keyring on the host (the filter refuses keyctl, not a read of /proc); /proc/key-users
 * gives their counts and quotas.
 *
 * Masked the way Docker masks them, with /dev/null bound over each: systemd-nspawn's own
 * `--inaccessible=` binds /run/systemd/inaccessible/reg, which only a host booted with systemd as
 * PID 1 has (nspawn fails to start without it). nspawn mounts a bind onto /proc after the
 * container's own /proc and resolves its source inside the container (systemd 252, seen here),
 * and every sandbox root has a /dev/null there: nspawn's own /dev. A NixOS container gets the
 * same through `bindMounts` (extra-container), which become the same nspawn flags.
 */
export const procMasks: readonly Bind[] = ["/proc/keys", "/proc/key-users"].map((target) => ({
  source: "/dev/null",
  target,
  readOnly: true,
}));
