import type { TemplateModel } from "../../../generator/model/model.js";
import type { Bind } from "../../core/bind.js";
import type { RuntimeContext } from "../../core/context.js";
import { rootPath } from "../../core/paths.js";
import { timed } from "../../core/phase-clock.js";
import { adoptBinds } from "../../mounts/host-mounts.js";
import { stageBinds } from "../../mounts/staged-binds.js";
import { identityKeyFile } from "../../provision/identity-key.js";
import { installSsh } from "../../provision/ssh-files.js";
import { rootKeyOf, type SandboxMetadata } from "../../state/metadata.js";
import { ContainerError } from "../shared/container-error.js";
import { claimHostRoot } from "../shared/host-root-files.js";
import { leaderOf } from "../shared/nspawn-leader.js";

/**
 * Backend.adopt for a host root under nspawn: the root's name-bound files written again for the
 * claiming sandbox (hostname, identity key's ssh config, sshd's key and authorized keys), then
 * its binds staged as a cold start stages them (user-controlled sources pinned and checked) and
 * moved into the running container with its new hostname (adoptBinds). The staging goes once
 * the container holds its own copies.
 */
export async function adoptNspawnMember(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  template: TemplateModel,
  toBind: Bind[],
): Promise<void> {
  const { host } = context.settings;
  const leader = metadata.pid === null ? undefined : await leaderOf(metadata.pid);
  if (leader === undefined) throw new ContainerError(`the pool's member for sandbox ${metadata.name} is not running`);
  const root = rootPath(context.paths, rootKeyOf(metadata));
  const user = { name: host.containerUsername, uid: metadata.uid, gid: metadata.gid };
  await timed(context.clock, "claim: root files", async () => {
    if (template.ssh) await installSsh(context.paths, root, metadata, host.containerUsername);
    const identityKey = metadata.secrets.includes(identityKeyFile)
      ? `${host.secretsMountPath}/${identityKeyFile}`
      : null;
    await claimHostRoot(root, { hostname: metadata.name, identityKey, user });
  });
  const staged = await timed(context.clock, "claim: stage binds", () => stageBinds(toBind));
  try {
    // As nspawn does for a bind onto /proc (the masks' /dev/null): its source as the container sees it.
    const binds = staged.binds.map((bind) => ({ ...bind, sourceInside: bind.target.startsWith("/proc/") }));
    await timed(context.clock, "claim: adopt binds", () => adoptBinds(leader, metadata.name, binds));
  } finally {
    await staged.release();
  }
}
