/** Where the sandbox finds the gate: its socket's directory and the relay git runs. */
export const gateSocketMountDir = "/run/forage-push";
export const relayMountPath = "/run/forage-git-relay";

/** A remote of the user's repository the gate stands in for. */
export interface GatedRemote {
  name: string;
  /** Its push URL as the user's git config says it. */
  url: string;
}

/**
 * The sandbox's git configuration that sends pushes to the gate: each remote's push URL rewritten
 * (url.<gate>.pushInsteadOf, so fetches still go where they went) to git's ext:: transport running
 * the relay, which connects to the gate's socket. The sandbox holds no push credential, so this is
 * a way, not the lock: a push that avoids it reaches no upstream. Remote names are checked by the
 * caller (gatedRemoteName); URLs are written as quoted values.
 *
 * @example sandboxGitConfig([{ name: "origin", url: "/srv/up.git" }])
 * // '[protocol "ext"]\n\tallow = always\n[url "ext::/run/forage-git-relay %S origin /run/forage-push/gate.sock"]\n\tpushInsteadOf = "/srv/up.git"\n'
 */
export function sandboxGitConfig(remotes: readonly GatedRemote[], where = { relay: relayMountPath, socket: `${gateSocketMountDir}/gate.sock` }): string {
  const sections = remotes.map((remote) => `[url "ext::${where.relay} %S ${remote.name} ${where.socket}"]\n\tpushInsteadOf = ${quoted(remote.url)}\n`);
  return `[protocol "ext"]\n\tallow = always\n${sections.join("")}`;
}

/** Remote names the gate accepts: what the relay's argv and the config's section name can carry. */
export function gatedRemoteName(name: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name);
}

/** A git config value in double quotes ('\' and '"' escaped); newlines are refused. */
function quoted(value: string): string {
  if (/[\n\r\0]/.test(value)) throw new Error("a remote URL with a line break");
  return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}
