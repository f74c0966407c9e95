import type { RuntimeContext } from "../core/context.js";
import { ownerHome } from "../core/owner-home.js";
import type { SandboxMetadata } from "../state/metadata.js";
import type { RepoOwner } from "./vcs-command.js";

/** Who a sandbox's VCS commands run as on the host: the sandbox's uid/gid, the user's home. */
export async function repoOwnerOf(context: RuntimeContext, metadata: SandboxMetadata): Promise<RepoOwner> {
  return { uid: metadata.uid, gid: metadata.gid, home: await ownerHome(context), name: context.settings.host.user };
}
