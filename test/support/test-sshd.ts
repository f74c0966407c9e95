import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";

/** A running sshd for root's logins, and what a client needs to trust it. */
export interface TestSshd {
  /** A known_hosts file naming its host key for its address. */
  knownHosts: string;
  /** Its host public key line ("ssh-ed25519 AAAA…"), for a known_hosts of the client's own. */
  hostKey: string;
  /** Its host key's SHA256 fingerprint, as ssh-keygen -l shows it. */
  hostKeyFingerprint: string;
  stop(): Promise<void>;
}

/** Where it listens: port 22 of an address of a test host in a network namespace the test made (TestHosts). */
export interface SshdPlace {
  namespace: string;
  address: string;
}

/**
 * Starts the real sshd in the foreground, with a host key of its own in `dir`, accepting root's
 * logins with the `authorizedKeys` lines only and answering every login with `echo logged-in`
 * (ForceCommand), on a test host in a network namespace the test made (`place`): the only place
 * besides loopback a test's traffic may go.
 */
export async function startTestSshd(dir: string, authorizedKeys: string, place: SshdPlace): Promise<TestSshd> {
  const hostKey = join(dir, "host_key");
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", hostKey]);
  const hostKeyFingerprint =
    execFileSync("ssh-keygen", ["-l", "-f", `${hostKey}.pub`], { encoding: "utf8" }).split(" ")[1] ?? "";
  const publicKey = readFileSync(`${hostKey}.pub`, "utf8").trim();
  writeFileSync(join(dir, "authorized_keys"), authorizedKeys);
  const { address } = place;
  const knownHosts = join(dir, "known_hosts");
  writeFileSync(knownHosts, `${address} ${publicKey}\n`);
  const config = join(dir, "sshd_config");
  writeFileSync(
    config,
    [
      `ListenAddress ${address}`,
      `HostKey ${hostKey}`,
      "PidFile none",
      `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
      "StrictModes no",
      "UsePAM no",
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "PermitRootLogin prohibit-password",
      "AllowUsers root",
      "ForceCommand echo logged-in",
      "",
    ].join("\n"),
  );
  // sshd refuses to start without its privilege separation directory.
  mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
  const sshd = execa("ip", ["netns", "exec", place.namespace, "/usr/sbin/sshd", "-D", "-e", "-f", config, "-p", "22"], {
    reject: false,
  });
  let log = "";
  sshd.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  for (let i = 0; i < 100 && !log.includes("Server listening"); i++)
    await new Promise((resolve) => setTimeout(resolve, 50));
  if (!log.includes("Server listening")) {
    sshd.kill("SIGTERM");
    throw new Error(`sshd did not start: ${log}`);
  }
  return {
    knownHosts,
    hostKey: publicKey,
    hostKeyFingerprint,
    stop: async () => {
      sshd.kill("SIGTERM");
      await sshd.catch(() => undefined);
    },
  };
}
