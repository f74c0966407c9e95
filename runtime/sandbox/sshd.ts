import type { RuntimeContext } from "../core/context.js";
import { SandboxError } from "../core/errors.js";
import type { SandboxMetadata } from "../state/metadata.js";
import { execInRunning } from "./exec.js";

/** Capabilities sshd keeps (privilege separation, port 22); everything else is dropped. */
const sshdCapabilities = [
  "setuid",
  "setgid",
  "sys_chroot",
  "net_bind_service",
  "chown",
  "dac_override",
  "fowner",
  "kill",
  "audit_write",
];

/** Starts sshd inside the running sandbox as root with only the capabilities it needs. */
export async function startSshd(context: RuntimeContext, metadata: SandboxMetadata): Promise<void> {
  const options = { asRoot: true, cwd: "/", rootCapabilities: sshdCapabilities };
  // sshd's privilege-separation directory lives on the container's fresh /run.
  await execInRunning(context, metadata, ["mkdir", "-p", "-m", "0755", "/run/sshd"], options);
  const result = await execInRunning(context, metadata, ["/usr/sbin/sshd", "-f", "/etc/ssh/sshd_config"], options);
  if (result.exitCode !== 0) {
    throw new SandboxError(
      `sshd did not start in ${metadata.name} (exit ${result.exitCode}): ${result.stderr.trim()}${result.exitCode === 127 ? " — install openssh-server on the host" : ""}`,
      "container",
    );
  }
}
