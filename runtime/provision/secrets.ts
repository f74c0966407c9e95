import { SandboxError } from "../core/errors.js";
import { chmod, chown, copyFile, mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { pathUnder } from "../core/names.js";
import { sandboxSecretsPath, type RuntimePaths } from "../core/paths.js";
import type { HostModel, TemplateModel } from "../../generator/model/model.js";
import { writeProxiedCredentials } from "../gates/api-proxy/sandbox-credentials.js";
import { copyIdentityKey, identityKeyFile } from "./identity-key.js";
import { homeSeedName, writeHomeSeed } from "./home-seed.js";
import { identityHomeFiles } from "./identity-files.js";
import { contextHomeLinks } from "../context/context-files.js";
import { pushGateHomeFiles } from "../gates/push-gate/sandbox-push-gate.js";
import { mcpHomeFiles, mergeHomeFiles } from "../gates/mcp-gate/agent-mcp-config.js";
import type { SandboxMetadata, WorkspaceMount } from "../state/metadata.js";

/** A secret the template needs could not be read on the host. */
export class SecretError extends SandboxError {
  override name = "SecretError";
  constructor(message: string) {
    super(message, "config");
  }
}

/** Who a sandbox's secret copies are for, and which identity key (if any) it uses. */
export interface SecretsOwner {
  name: string;
  slot: number;
  uid: number;
  gid: number;
  agentIdentity: { sshKeyPath?: string | undefined; gitUser?: string | undefined; gitEmail?: string | undefined };
  /** The workspace and push gate, for the gate's git config in the home (none without a gate). */
  workspace: WorkspaceMount;
  pushGate?: SandboxMetadata["pushGate"] | undefined;
}

/**
 * Copies the secrets the template's agents get by "wrapper" to /run/forage-secrets/<sandbox>/
 * (dir 0700 and files 0400, owned by the agent's uid), which the sandbox mounts read-only at
 * /run/secrets, plus the agent's SSH identity key when it has one. Agents behind the API proxy
 * get a marker or placeholder there instead, never the key; `_home/` seeds the agent's home
 * (its git and jj identity, stand-in logins, links to its context, the push gate's git config). Returns the names of the
 * files written. Only the files are copied; secret contents are never read into this process.
 */
export async function copySecrets(
  paths: RuntimePaths,
  sandbox: SecretsOwner,
  template: TemplateModel,
  host: HostModel,
): Promise<string[]> {
  const names = [
    ...new Set(
      template.agents.flatMap((agent) =>
        agent.secret === null || agent.auth !== "wrapper" ? [] : [agent.secret.name],
      ),
    ),
  ].sort();
  const dir = sandboxSecretsPath(paths, sandbox.name);
  await rm(dir, { recursive: true, force: true });
  // The parent stays root-only: the sandbox sees its own directory through the bind mount.
  await mkdir(paths.secretsDir, { recursive: true, mode: 0o700 });
  await mkdir(dir, { mode: 0o700 });
  await chown(dir, sandbox.uid, sandbox.gid);
  for (const name of names) await copySecretFile(host, name, pathUnder(dir, name), sandbox);
  const proxied = await writeProxiedCredentials(dir, sandbox, template, host, paths);
  names.push(...proxied.names);
  const homeFiles = mergeHomeFiles(
    identityHomeFiles(sandbox.agentIdentity),
    proxied.homeFiles,
    pushGateHomeFiles(sandbox),
    mcpHomeFiles(template, host, sandbox.slot),
  );
  if (await writeHomeSeed(dir, { files: homeFiles, links: contextHomeLinks(template) }, sandbox))
    names.push(homeSeedName);
  const keyPath = sandbox.agentIdentity.sshKeyPath;
  if (keyPath === undefined) return names;
  await copyIdentityKey(keyPath, join(dir, identityKeyFile), sandbox, template.agentIdentity.sshKeyPath);
  return [...names, identityKeyFile];
}

/**
 * The host file of secret `name` copied to `target`, 0400 and the sandbox user's; only copied,
 * never read into this process. A secret the settings lack, or a file that cannot be copied, is
 * a SecretError naming it (and `what` it is for, when said).
 */
export async function copySecretFile(
  host: HostModel,
  name: string,
  target: string,
  owner: { uid: number; gid: number },
  what = "",
): Promise<void> {
  const source = host.secrets[name];
  if (source === undefined) throw new SecretError(`secret "${name}" is not defined in the host settings`);
  try {
    await copyFile(source, target);
  } catch (error) {
    throw new SecretError(
      `cannot copy secret "${name}"${what} from ${source}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  await chown(target, owner.uid, owner.gid);
  await chmod(target, 0o400);
}

/** Removes a sandbox's secret copies; absent is fine. */
export async function removeSecrets(paths: RuntimePaths, sandbox: string): Promise<void> {
  await rm(join(paths.secretsDir, sandbox), { recursive: true, force: true });
}
