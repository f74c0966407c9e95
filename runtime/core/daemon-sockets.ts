/** The run directory's daemon sockets, named in one place for the daemon, its clients and root's other processes. */

/** Where the daemon listens for the configured user (and root): FORAGE_RUN_DIR (default /run/forage) / daemon.sock. */
export function socketPath(env: NodeJS.ProcessEnv = process.env): string {
  return `${env.FORAGE_RUN_DIR ?? "/run/forage"}/daemon.sock`;
}

/**
 * Where the daemon listens for root alone: root's socket, mode 0600 and root's, beside the user's.
 * The kernel checks who may connect, so a request on it is root's: it runs as root's own command
 * would (settings read afresh, any workspace, a root shell), only without loading everything first.
 */
export function rootSocketPath(env: NodeJS.ProcessEnv = process.env): string {
  return rootSocketIn(env.FORAGE_RUN_DIR ?? "/run/forage");
}

/** Root's socket of the daemon of run directory `runDir` (the guard host knows its run directory, not its env). */
export function rootSocketIn(runDir: string): string {
  return `${runDir}/daemon-root.sock`;
}
