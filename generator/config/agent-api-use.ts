import type { AgentApi } from "./schema/agent-api.js";
import type { SchemaProblem } from "./zod-issues.js";

/** What of an agent decides which of its `api` fields anything reads. */
interface AgentAuthFacts {
  auth?: string | undefined;
  secretName?: string | undefined;
  login?: string | undefined;
  api?: Partial<Record<keyof AgentApi, unknown>> | undefined;
}

/** The only `api` fields an agent with a login has: its API and headers are its program's own (agent-logins.ts). */
const loginApiFields = ["upstream", "tokenUrl"];

/**
 * The `api` fields of one agent that nothing would read, each refused at its own path (relative
 * to the agent). Decided from the agent alone: `api` when it never goes by the proxy (auth
 * "wrapper", or no key or login to proxy), a login's fields other than its upstream and token
 * endpoint, and `hosts` unless auth is "placeholder". Whether useProxy puts an agent without its own
 * auth behind the proxy depends on the templates it is in: checkProxyUse sees that.
 *
 * @example agentApiProblems({ auth: "proxy", secretName: "k", api: { hosts: ["a.example"] } })
 *   // [{ path: ["api", "hosts"], message: 'api.hosts lists the hosts auth "placeholder" … remove api.hosts' }]
 */
export function agentApiProblems(agent: AgentAuthFacts): SchemaProblem[] {
  const { api } = agent;
  if (api === undefined) return [];
  if (agent.auth === "wrapper") {
    return [
      {
        path: ["api"],
        atKey: true,
        message:
          'api says how the API proxy reaches the agent\'s API, and auth "wrapper" does not go through the proxy: remove api, or use auth "proxy" or "placeholder"',
      },
    ];
  }
  // auth proxy or placeholder without a key or login is refused on its own (agent.ts).
  if (agent.secretName === undefined && agent.login === undefined) {
    if (agent.auth !== undefined) return [];
    return [
      {
        path: ["api"],
        atKey: true,
        message:
          "api says how the API proxy reaches the agent's API, and this agent has no key (secretName) or login for the proxy to add: remove api, or give it a key or a login",
      },
    ];
  }
  const written = Object.keys(api).filter((field) => api[field as keyof AgentApi] !== undefined);
  const problems: SchemaProblem[] = [];
  if (agent.login !== undefined) {
    for (const field of written.filter((each) => !loginApiFields.includes(each))) {
      problems.push({
        path: ["api", field],
        atKey: true,
        message: `api.${field} has no effect on an agent with a login: the proxy talks to its program's own API the way the program does (only api.upstream and api.tokenUrl apply): remove api.${field}`,
      });
    }
    if (agent.login === "token" && api.tokenUrl !== undefined) {
      problems.push({
        path: ["api", "tokenUrl"],
        atKey: true,
        message:
          'api.tokenUrl is where an oauth login is refreshed, and a "token" login is never refreshed: remove api.tokenUrl',
      });
    }
  } else if (api.hosts !== undefined && agent.auth !== "placeholder") {
    problems.push({
      path: ["api", "hosts"],
      atKey: true,
      message: `api.hosts lists the hosts auth "placeholder" swaps the stand-in for the key on, and this agent's auth is ${agent.auth === undefined ? '"proxy" (useProxy) or "wrapper"' : `"${agent.auth}"`}, which ${agent.auth === "proxy" ? "adds the key to every request it forwards" : "has no stand-in"}: set auth "placeholder", or remove api.hosts`,
    });
  }
  return problems;
}
