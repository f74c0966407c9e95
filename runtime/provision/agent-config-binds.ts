import { stat } from "node:fs/promises";
import { relative } from "node:path";
import type { TemplateModel } from "../../generator/model/model.js";
import { expandHome } from "../core/host-user.js";
import type { Bind } from "../core/bind.js";

/**
 * The agents' own login/config directories (agent hostConfigDir, e.g. "~/.claude"), bound at
 * containerConfigDir — by default the same place under the agent's home — read-only if the
 * template says so. A directory the host does not have is skipped with a warning: the agent
 * then starts logged out rather than not at all.
 */
export async function agentConfigBinds(
  template: TemplateModel,
  host: { home: string; agentUser: string },
  warn: (message: string) => void,
): Promise<Bind[]> {
  const binds: Bind[] = [];
  for (const agent of template.agents) {
    if (agent.hostConfigDir === null) continue;
    const source = expandHome(agent.hostConfigDir, host.home);
    if ((await stat(source).catch(() => undefined))?.isDirectory() !== true) {
      warn(`agent ${agent.name}: ${source} (hostConfigDir) does not exist on the host; it is not mounted`);
      continue;
    }
    const underHome = relative(host.home, source);
    const target =
      agent.containerConfigDir ??
      `/home/${host.agentUser}/${underHome.startsWith("..") ? (source.split("/").pop() ?? agent.name) : underHome}`;
    binds.push({ source, target, readOnly: agent.hostConfigDirReadOnly });
  }
  return binds;
}
