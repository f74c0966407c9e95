import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { freePort } from "./free-port.js";

/** A running sshd on 127.0.0.1 for root's logins, and what a client needs to trust it. */
export interface LoopbackSshd {
  port: number;
  /** A known_hosts file naming its host key for [127.0.0.1]:port. */
  knownHosts: string;
  /** Its host key's SHA256 fingerprint, as ssh-keygen -l shows it. */
  hostKeyFingerprint: string;
  stop(): Promise<void>;
}

/**
 * Starts the real sshd in the foreground on a free loopback port, with a host key of its own in
 * `dir`, accepting root's logins with the `authorizedKeys` lines only and answering every login
 * with `echo logged-in` (ForceCommand): a test host for ssh clients and agents, reached only over
 * loopback.
 */
export async function startLoopbackSshd(dir: string, authorizedKeys: string): Promise<LoopbackSshd> {
  const hostKey = join(dir, "host_key");
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", hostKey]);
  const hostKeyFingerprint = execFileSync("ssh-keygen", ["-l", "-f", `${hostKey}.pub`], { encoding: "utf8" }).split(" ")[1] ?? "";
  writeFileSync(join(dir, "authorized_keys"), authorizedKeys);
  const port = await freePort();
  const knownHosts = join(dir, "known_hosts");
  writeFileSync(knownHosts, `[127.0.0.1]:${port} ${readFileSync(`${hostKey}.pub`, "utf8")}`);
  const config = join(dir, "sshd_config");
  writeFileSync(
    config,
    [
      "ListenAddress 127.0.0.1",
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
  const sshd = execa("/usr/sbin/sshd", ["-D", "-e", "-f", config, "-p", String(port)], { reject: false });
  let log = "";
  sshd.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  for (let i = 0; i < 100 && !log.includes("Server listening"); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  if (!log.includes("Server listening")) {
    sshd.kill("SIGTERM");
    throw new Error(`sshd did not start: ${log}`);
  }
  return {
    port,
    knownHosts,
    hostKeyFingerprint,
    stop: async () => {
      sshd.kill("SIGTERM");
      await sshd.catch(() => undefined);
    },
  };
}
