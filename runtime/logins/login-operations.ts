import type { LoginFlavor, LoginKind } from "../../generator/config/agent-logins.js";
import type { Model } from "../../generator/model/model.js";
import type { RuntimeContext } from "../core/context.js";
import { SandboxError } from "../core/errors.js";
import { parseLogin } from "./login-import.js";
import { readLogin, removeLogin, storedLoginAgents, storeLogin } from "./login-store.js";
import { loginStatus, type LoginStatus } from "./login-status.js";

/** The agents whose templates give them a login: name → the program's login and the kinds asked for. */
export function wantedLogins(settings: Model): Map<string, { flavor: LoginFlavor; kinds: LoginKind[] }> {
  const wanted = new Map<string, { flavor: LoginFlavor; kinds: LoginKind[] }>();
  for (const template of settings.templates) {
    for (const agent of template.agents) {
      if (agent.login === null) continue;
      const known = wanted.get(agent.name) ?? { flavor: agent.login.flavor, kinds: [] };
      if (!known.kinds.includes(agent.login.kind)) known.kinds.push(agent.login.kind);
      wanted.set(agent.name, known);
    }
  }
  return wanted;
}

/**
 * Stores the login read from the user's stdin for the configured user's sandboxes, after checking
 * it is what the agent's templates use. Answers its status (never the value).
 */
export async function setLogin(context: RuntimeContext, agent: string, text: string): Promise<LoginStatus> {
  const wanted = wantedLogins(context.settings).get(agent);
  if (wanted === undefined) {
    const known = [...wantedLogins(context.settings).keys()];
    throw new SandboxError(
      `no template gives an agent named "${agent}" a login${known.length > 0 ? ` (agents with one: ${known.join(", ")})` : ""}: add login: "token" or "oauth" to the agent in your config`,
      "usage",
    );
  }
  const record = parseLogin({ agent, flavor: wanted.flavor, kinds: wanted.kinds }, text, new Date());
  const user = context.settings.host.user;
  await storeLogin(context.paths, user, agent, record);
  return loginStatus(agent, wanted, record, Date.now());
}

/** Every login the templates want or the store holds, for the configured user. */
export async function loginStatuses(context: RuntimeContext): Promise<LoginStatus[]> {
  const user = context.settings.host.user;
  const wanted = wantedLogins(context.settings);
  const agents = [...new Set([...wanted.keys(), ...(await storedLoginAgents(context.paths, user))])].sort();
  return Promise.all(
    agents.map(async (agent) =>
      loginStatus(agent, wanted.get(agent), await readLogin(context.paths, user, agent), Date.now()),
    ),
  );
}

/** Removes an agent's stored login; says when there was none. */
export async function forgetLogin(context: RuntimeContext, agent: string): Promise<void> {
  if (!(await removeLogin(context.paths, context.settings.host.user, agent)))
    throw new SandboxError(`no login is stored for agent "${agent}" (see forage-ctl auth status)`, "not-found");
}
