import { lookupHostUser } from "../host-user.js";
import type { RuntimeContext } from "../sandbox/context.js";
import type { SandboxMetadata } from "../state/metadata.js";
import type { RepoOwner } from "./vcs-command.js";

/** Who a sandbox's VCS commands run as on the host: the sandbox's uid/gid, the user's home. */
export async function repoOwnerOf(context: RuntimeContext, metadata: SandboxMetadata): Promise<RepoOwner> {
  const home = (await lookupHostUser(context.settings.host.user))?.home ?? "/nonexistent";
  return { uid: metadata.uid, gid: metadata.gid, home };
}
