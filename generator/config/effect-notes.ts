import { unrecognisedPermissionsNotes } from "./check-permissions.js";
import { inherits, proxiedAgents, type FlatTemplate } from "./proxied-agents.js";
import { pushGateBypassNotes } from "./push-gate-notes.js";
import type { Config } from "./schema/config.js";
import type { SchemaProblem } from "./zod-issues.js";

/**
 * Options written where they change nothing, said so in a note rather than refused: `useProxy`
 * and `authorizedKeys` are the reference's and load as they did there (its configs set useProxy
 * beside agents that log in with hostConfigDir, which have no key to proxy, and authorizedKeys
 * where every sandbox ran sshd), and `proxy.enable: true` and the proxy's other settings are what a
 * config with a proxied agent means anyway, so one whose agents were just moved to auth "wrapper"
 * keeps loading. Permissions on a package Forage does not know may be Claude Code's under another
 * name. A secret no agent names is read by nothing. An SSH agent that signs unasked beside a push
 * gate gives the sandbox a way around it. None changes what runs: no agent's auth, no proxy, no
 * sshd. Runs on sound `extends`.
 */
export function effectNotes(config: Config, flat: readonly FlatTemplate[]): SchemaProblem[] {
  return [
    ...idleProxyNotes(config, flat),
    ...useProxyNotes(config, flat),
    ...authorizedKeysNotes(config, flat),
    ...unusedSecretsNotes(config),
    ...unrecognisedPermissionsNotes(config),
    ...pushGateBypassNotes(config, flat),
  ];
}

/**
 * A secret is read for the agents that name it (secretName) and the MCP servers that do (secret, env):
 * one nobody names is read by nothing.
 */
function unusedSecretsNotes(config: Config): SchemaProblem[] {
  const named = new Set(
    Object.values(config.templates).flatMap((template) => [
      ...Object.values(template.agents ?? {}).map((agent) => agent.secretName),
      ...Object.values(template.mcp?.servers ?? {}).flatMap((server) => [
        server.secret,
        ...Object.values(server.env ?? {}),
      ]),
    ]),
  );
  return Object.keys(config.secrets)
    .filter((name) => !named.has(name))
    .map((name) => ({
      path: ["secrets", name],
      atKey: true,
      message: `secret "${name}" has no effect: no agent names it (secretName) and no MCP server (secret or env), so its file is never read; remove it, or give an agent secretName: ${name}`,
    }));
}

/** The proxy's settings, written while no agent goes by it: it does not run, so nothing reads them. */
function idleProxyNotes(config: Config, flat: readonly FlatTemplate[]): SchemaProblem[] {
  if (flat.some((each) => proxiedAgents(each.template).length > 0)) return [];
  const notes: SchemaProblem[] = [];
  if (config.proxy.enable === true) {
    notes.push({
      path: ["proxy", "enable"],
      atKey: true,
      message:
        'proxy.enable has no effect: no agent goes by the API proxy (auth "proxy" or "placeholder", or an oauth login), so it has nobody to serve and does not run; remove it, or put an agent with a key behind the proxy',
    });
  }
  const settings = ["port", "rateLimit", "auditLog", "auditLogMaxBytes", "caFile", "allowUpstreams"] as const;
  for (const field of settings.filter((each) => config.proxy[each] !== undefined)) {
    notes.push({
      path: ["proxy", field],
      atKey: true,
      message: `proxy.${field} has no effect: no agent goes by the API proxy (auth "proxy" or "placeholder", or an oauth login), so it does not run; remove it, or put an agent with a key behind the proxy`,
    });
  }
  return notes;
}

function useProxyNotes(config: Config, flat: readonly FlatTemplate[]): SchemaProblem[] {
  const notes: SchemaProblem[] = [];
  for (const [templateName, template] of Object.entries(config.templates)) {
    if (template.useProxy !== true) continue;
    const reached = flat.filter((each) => each.template.useProxy === true && inherits(config, each.name, templateName));
    if (reached.some((each) => Object.values(each.template.agents ?? {}).some(defaultsToProxy))) continue;
    const others = reached.length > 1 ? " or of the templates extending it" : "";
    notes.push({
      path: ["templates", templateName, "useProxy"],
      atKey: true,
      message: `useProxy has no effect here: it makes auth "proxy" the default of agents with a key (secretName) or a login, and no agent of this template${others} has one without its own auth; remove it, or give an agent a key or a login`,
    });
  }
  return notes;
}

/** authorizedKeys are what a sandbox's sshd accepts: with no template running sshd, nothing reads them. */
function authorizedKeysNotes(config: Config, flat: readonly FlatTemplate[]): SchemaProblem[] {
  if (config.authorizedKeys.length === 0 || flat.some((each) => each.template.ssh === true)) return [];
  return [
    {
      path: ["authorizedKeys"],
      atKey: true,
      message:
        "authorizedKeys has no effect: they are the keys a sandbox's sshd accepts, and no template runs sshd (ssh: true); forage-ctl attach needs no key. Remove authorizedKeys, or set ssh: true in the templates you log in to over SSH",
    },
  ];
}

/** An agent whose auth useProxy decides: a key or a token login, and no auth of its own (an oauth login always goes by the proxy). */
function defaultsToProxy(agent: {
  auth?: string | undefined;
  secretName?: string | undefined;
  login?: string | undefined;
}): boolean {
  return (
    agent.auth === undefined && agent.login !== "oauth" && (agent.secretName !== undefined || agent.login !== undefined)
  );
}
