import { backendOf } from "../backends/registry.js";
import type { RuntimeContext } from "../core/context.js";
import { SandboxError } from "../core/errors.js";
import { homeSeedName } from "../provision/home-seed.js";
import type { SandboxMetadata } from "../state/metadata.js";
import { execInRunning } from "./exec.js";

/**
 * Copies the sandbox's home seed into the agent's home, as the agent, before its session starts:
 * the agent finds itself logged in and its context where it looks, and owns the copies as it
 * would its own files. One exec, and only when there is a seed.
 */
export async function seedHome(context: RuntimeContext, metadata: SandboxMetadata): Promise<void> {
  // A NixOS system opens the session itself, at boot: it copies the seed first (forage-session.service).
  if (!metadata.secrets.includes(homeSeedName) || backendOf(metadata.runtime).capabilities.ownInit) return;
  const { secretsMountPath, containerUsername } = context.settings.host;
  // -r copies links as links (GNU cp -R does not follow them); -T merges into the home itself.
  const result = await execInRunning(context, metadata, [
    "cp",
    "-rT",
    "--",
    `${secretsMountPath}/${homeSeedName}`,
    `/home/${containerUsername}`,
  ]);
  if (result.exitCode !== 0)
    throw new SandboxError(
      `could not put the agents' files in ${containerUsername}'s home: ${result.stderr.trim().split("\n").slice(-2).join(" / ")}`,
      "container",
    );
}
