import { randomBytes } from "node:crypto";
import { chown, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { HostModel, TemplateModel } from "../../../generator/model/model.js";
import { sandboxLink } from "../../../generator/policy/network/sandbox-link.js";
import { pathUnder } from "../../core/names.js";
import type { RuntimePaths } from "../../core/paths.js";
import { provisionLogin } from "../../logins/sandbox-logins.js";

/**
 * Subdirectory of a sandbox's secrets dir with each proxied agent's settings (no secret name
 * starts with "_"). modules/lib/agent-wrappers.nix reads the same `_proxy/<agent>`.
 */
const proxyEnvDir = "_proxy";

/** What an agent behind the proxy finds in its key variable with auth "proxy": not a key, and says so. */
export const proxyKeyMarker = "forage-proxy-adds-the-key";

/** Placeholders are this prefix and 32 random bytes in hex: unguessable, and easy to spot in a leak. */
const placeholderPrefix = "forage-placeholder-";
const placeholderPattern = /^forage-placeholder-[0-9a-f]{64}$/;

/** Where an agent's proxy settings appear inside the sandbox, e.g. /run/secrets/_proxy/claude. */
export function proxyEnvFile(secretsMountPath: string, agent: string): string {
  return `${secretsMountPath}/${proxyEnvDir}/${agent}`;
}

/** The URL a sandbox's agent uses for the proxy: its host end, the proxy port, the agent's route. */
export function proxyAgentUrl(host: Pick<HostModel, "proxy" | "network">, slot: number, agent: string): string {
  return `http://${sandboxLink(slot, host.network.base).hostAddress}:${host.proxy.port}/${agent}`;
}

/** A file written into a sandbox's secrets dir, owned by the agent, read-only. */
type WriteOwned = (path: string, text: string) => Promise<void>;

/**
 * Writes what agents find under /run/secrets besides wrapper keys: for proxied agents the key
 * file holds the marker or a fresh random placeholder; `_proxy/<agent>` holds `NAME=value` lines
 * pointing the agent's base-URL variables at its proxy route, and a login's token (auth wrapper)
 * or its stand-in. Returns the names written, and the stand-in login files for the agent's home
 * (home-relative path → text). A real key is never read here; a login only for auth wrapper.
 */
export async function writeProxiedCredentials(
  dir: string,
  owner: { uid: number; gid: number; slot: number },
  template: TemplateModel,
  host: HostModel,
  paths: RuntimePaths,
): Promise<{ names: string[]; homeFiles: Record<string, string> }> {
  const served = template.agents.filter(
    (agent) => (agent.auth !== "wrapper" && agent.secret !== null) || agent.login !== null,
  );
  if (served.length === 0) return { names: [], homeFiles: {} };
  const write: WriteOwned = async (path, text) => {
    await writeFile(path, text, { mode: 0o400, flag: "wx" });
    await chown(path, owner.uid, owner.gid);
  };
  await mkdir(join(dir, proxyEnvDir), { mode: 0o500 });
  await chown(join(dir, proxyEnvDir), owner.uid, owner.gid);
  const written = new Set<string>();
  const homeFiles: Record<string, string> = {};
  for (const agent of served) {
    const { secret, login } = agent;
    if (secret !== null && agent.auth !== "wrapper" && !written.has(secret.name)) {
      // One placeholder per secret and sandbox: a new sandbox never reuses an old one's.
      await write(
        pathUnder(dir, secret.name),
        agent.auth === "placeholder" ? `${placeholderPrefix}${randomBytes(32).toString("hex")}` : proxyKeyMarker,
      );
      written.add(secret.name);
    }
    const lines: string[] = [];
    if (login !== null) {
      const provision = await provisionLogin(paths, host.user, { ...agent, login });
      lines.push(...provision.env);
      Object.assign(homeFiles, provision.files);
    }
    const url = proxyAgentUrl(host, owner.slot, agent.name);
    if (agent.auth !== "wrapper")
      lines.push(...Object.entries(agent.api?.baseUrlEnv ?? {}).map(([name, suffix]) => `${name}=${url}${suffix}`));
    await write(pathUnder(join(dir, proxyEnvDir), agent.name), lines.map((line) => `${line}\n`).join(""));
  }
  return { names: [...written].sort(), homeFiles };
}

/** The placeholder a sandbox's agents hold for a secret, read back by the proxy; undefined if none. */
export async function readPlaceholder(dir: string, secret: string): Promise<string | undefined> {
  const text = await readFile(pathUnder(dir, secret), "utf8").catch(() => undefined);
  return text !== undefined && placeholderPattern.test(text) ? text : undefined;
}
