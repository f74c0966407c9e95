import { loginPresets } from "../../generator/config/agent-logins.js";
import type { AgentModel, LoginModel } from "../../generator/model/model.js";
import type { RuntimePaths } from "../core/paths.js";
import { SandboxError } from "../core/errors.js";
import { readLogin } from "./login-store.js";
import { standInFiles, standInToken } from "./stand-in-files.js";

/** What a sandbox's agent gets of its login: variables for its env file, and files for its home. */
export interface LoginProvision {
  /** NAME=value lines: the token (auth wrapper) or a stand-in (auth proxy). */
  env: string[];
  /** Home-relative path → text (stand-in login files, first-run marks). */
  files: Record<string, string>;
}

/**
 * Reads the agent's stored login and gives the sandbox what it needs of it: with auth wrapper a
 * token login's token, in the agent's env file only; with the proxy nothing real, only stand-ins.
 * No login stored is an error that names the command to store one.
 */
export async function provisionLogin(
  paths: RuntimePaths,
  user: string,
  agent: AgentModel & { login: LoginModel },
): Promise<LoginProvision> {
  const record = await readLogin(paths, user, agent.name);
  if (record === undefined)
    throw new SandboxError(
      `no login is stored for agent "${agent.name}": run forage-ctl auth set ${agent.name} first (see forage-ctl auth --help)`,
      "config",
    );
  if (record.kind !== agent.login.kind) {
    throw new SandboxError(
      `agent "${agent.name}" wants a ${agent.login.kind} login but a ${record.kind} login is stored: run forage-ctl auth set ${agent.name} again`,
      "config",
    );
  }
  const { tokenEnv } = loginPresets[agent.login.flavor];
  const env =
    record.kind === "token" && tokenEnv !== null
      ? [`${tokenEnv}=${agent.auth === "wrapper" ? record.token : standInToken()}`]
      : [];
  return { env, files: standInFiles(agent.login.flavor, record, Date.now()) };
}
