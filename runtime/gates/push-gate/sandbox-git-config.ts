/** Where the sandbox finds the gate: its socket's directory and the relay git runs. */
export const gateSocketMountDir = "/run/forage-push";
export const relayMountPath = "/run/forage-git-relay";
/** The gate's remotes config, in its socket directory (the gate keeps it current). */
export const remotesConfigName = "remotes.gitconfig";

/** A remote of the user's repository the gate stands in for. */
export interface GatedRemote {
  name: string;
  /** Its push URL as the user's git config says it. */
  url: string;
  /** The URL is the remote's own remote.<name>.pushurl (not its url). */
  fromPushUrl: boolean;
}

/** The relay and the gate's socket, as paths the sandbox's git sees. */
export interface SandboxGatePaths {
  relay: string;
  socket: string;
}

const inSandbox: SandboxGatePaths = { relay: relayMountPath, socket: `${gateSocketMountDir}/gate.sock` };

/**
 * The git configuration that sends pushes to the gate: each remote's push URL rewritten
 * (url.<gate>.pushInsteadOf, so fetches still go where they went) to git's ext:: transport running
 * the relay, which connects to the gate's socket. git applies no pushInsteadOf to a remote's
 * explicit pushurl, only insteadOf: such a URL is rewritten with insteadOf (a fetch from that
 * very URL then goes to the gate too, which refuses it). The gate writes it into its socket directory,
 * which the sandbox's home config includes (pushGateHomeConfig). The sandbox holds no push
 * credential, so this is a way, not the lock: a push that avoids it reaches no upstream. Remote
 * names are checked by the caller (gatedRemoteName); URLs are written as quoted values.
 *
 * @example sandboxGitConfig([{ name: "origin", url: "/srv/up.git", fromPushUrl: false }])
 * // '[protocol "ext"]\n\tallow = always\n[url "ext::/run/forage-git-relay %S origin /run/forage-push/gate.sock"]\n\tpushInsteadOf = "/srv/up.git"\n'
 */
export function sandboxGitConfig(remotes: readonly GatedRemote[], where: SandboxGatePaths = inSandbox): string {
  const sections = remotes.map(
    (remote) =>
      `[url "ext::${where.relay} %S ${remote.name} ${where.socket}"]\n\t${remote.fromPushUrl ? "insteadOf" : "pushInsteadOf"} = ${quoted(remote.url)}\n`,
  );
  return `[protocol "ext"]\n\tallow = always\n${sections.join("")}`;
}

/**
 * The agent's home git config for the gate: it only includes the gate's remotes config, so a
 * remote the user adds while the sandbox runs is gated without a reset. A missing include file
 * (the gate not up yet) is no error to git.
 *
 * @example pushGateHomeConfig() // '[include]\n\tpath = "/run/forage-push/remotes.gitconfig"\n'
 */
export function pushGateHomeConfig(remotesConfig = `${gateSocketMountDir}/${remotesConfigName}`): string {
  return `[include]\n\tpath = ${quoted(remotesConfig)}\n`;
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
