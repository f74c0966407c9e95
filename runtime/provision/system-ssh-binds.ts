import type { TemplateModel } from "../../generator/model/model.js";
import type { Bind } from "../core/bind.js";
import type { SandboxMetadata } from "../state/metadata.js";
import type { RuntimeContext } from "../core/context.js";
import { identityKeyFile } from "./identity-key.js";
import { identitySshConfigFile } from "./identity-ssh-config.js";
import { sshBindsForSystem } from "./ssh-files.js";

/** A NixOS system's SSH files from the host: sshd's pinned key and authorized keys, the agent's identity config. */
export async function systemSshBinds(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  template: TemplateModel,
): Promise<Bind[]> {
  const { host } = context.settings;
  const binds = template.ssh ? await sshBindsForSystem(context.paths, metadata, host.containerUsername) : [];
  if (metadata.secrets.includes(identityKeyFile)) {
    const config = await identitySshConfigFile(
      context.paths,
      metadata.name,
      `${host.secretsMountPath}/${identityKeyFile}`,
    );
    binds.push({ source: config, target: `/home/${host.containerUsername}/.ssh/config`, readOnly: true });
  }
  return binds;
}
