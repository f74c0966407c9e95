import { chown, mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { HostModel } from "../../generator/model/model.js";
import { pathUnder } from "../core/names.js";
import { sandboxSecretsPath, type RuntimePaths } from "../core/paths.js";
import { copySecretFile } from "./secrets.js";

/** The directory, among a stdio MCP server's sandbox's secrets, whose files become the server's environment. */
export const serverEnvDir = "_mcp-env";

/** Where the server's sandbox sees it (its secrets are mounted at /run/secrets). */
export const serverEnvDirInside = `/run/secrets/${serverEnvDir}`;

/**
 * Copies the secrets a stdio MCP server gets as environment variables (`env`: variable → secret)
 * into its sandbox's secrets, one file per variable, named after it (`_mcp-env/GITHUB_TOKEN`),
 * 0400 and the sandbox user's: the launcher (runtime/assets/forage-mcp-server) exports each
 * file's content under its name for the server alone. Only the files are copied, never read
 * here; the agent's sandbox never gets them. Returns the name to record among the sandbox's secrets.
 */
export async function copyServerSecrets(
  paths: RuntimePaths,
  sandbox: { name: string; uid: number; gid: number },
  env: Readonly<Record<string, string>>,
  host: HostModel,
): Promise<string> {
  const dir = join(sandboxSecretsPath(paths, sandbox.name), serverEnvDir);
  await mkdir(dir, { mode: 0o500 });
  // Each variable's name was checked against envVarName in the config: a plain file name.
  for (const [variable, secret] of Object.entries(env))
    await copySecretFile(host, secret, pathUnder(dir, variable), sandbox, ` (for ${variable})`);
  await chown(dir, sandbox.uid, sandbox.gid);
  return serverEnvDir;
}
