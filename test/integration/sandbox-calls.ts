import type { TestHost } from "./harness.js";

/** What test/support/api-client.mjs prints for one request made inside a sandbox. */
export interface Reply {
  status?: number;
  body?: string;
  error?: string;
}

/** Runs a command in a sandbox as the agent, as an argv (no shell), and returns its stdout (asserting success). */
export async function inSandbox(host: TestHost, sandbox: string, ...command: string[]): Promise<string> {
  const result = await host.run(["exec", sandbox, "--", ...command]);
  if (result.exitCode !== 0) throw new Error(`exec in ${sandbox} failed (${result.exitCode}): ${result.stderr}`);
  return result.stdout;
}

/**
 * One POST from inside a sandbox through an agent's launcher (its key or login, its base-URL
 * variables), by /workspace/client.mjs: `path` appended to the URL in `baseVariable`, with
 * "name=value" headers ("{env:VAR}" filled from the agent's environment).
 */
export async function callApi(
  host: TestHost,
  sandbox: string,
  agent: string,
  baseVariable: string,
  path: string,
  ...headers: string[]
): Promise<Reply> {
  const replies = JSON.parse(
    await inSandbox(
      host,
      sandbox,
      `/opt/forage/bin/${agent}`,
      "/workspace/client.mjs",
      baseVariable,
      "POST",
      path,
      "1",
      ...headers,
    ),
  ) as Reply[];
  return replies[0] as Reply;
}
