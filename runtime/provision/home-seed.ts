import type { RuntimeContext } from "../core/context.js";
import { SandboxError } from "../core/errors.js";
import { homeSeedName } from "../proxy/sandbox-credentials.js";
import { execInRunning } from "../sandbox/exec.js";
import type { SandboxMetadata } from "../state/metadata.js";

/**
 * Copies the sandbox's home seed (stand-in login files, see writeProxiedCredentials) into the
 * agent's home, as the agent, before its session starts: the agent finds itself logged in, and
 * owns the copies as it would its own login files. One exec, and only when there is a seed.
 */
export async function seedHome(context: RuntimeContext, metadata: SandboxMetadata): Promise<void> {
  if (!metadata.secrets.includes(homeSeedName)) return;
  const { secretsMountPath, containerUsername } = context.settings.host;
  const result = await execInRunning(context, metadata, ["cp", "-rT", "--", `${secretsMountPath}/${homeSeedName}`, `/home/${containerUsername}`]);
  if (result.exitCode !== 0) throw new SandboxError(`could not put the agents' login files in ${containerUsername}'s home: ${result.stderr.trim().split("\n").slice(-2).join(" / ")}`, "container");
}
