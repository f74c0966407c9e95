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

/** A tool call's result as an agent reads it: its text blocks joined, and whether it is an error. */
export interface ToolAnswer {
  text: string;
  isError: boolean;
}

/**
 * An agent's MCP client in a sandbox (test/support/mcp-client.mjs, bundled into its workspace),
 * for one server of its ~/.claude.json: `list` its tools' names, `call` one of them.
 */
export function mcpClient(
  host: TestHost,
  sandbox: string,
  server: string,
): { list: () => Promise<string[]>; call: (tool: string, args?: Record<string, unknown>) => Promise<ToolAnswer> } {
  const client = (...args: string[]): Promise<string> =>
    inSandbox(host, sandbox, "node", "/workspace/mcp-client.mjs", server, ...args);
  return {
    list: async () => JSON.parse(await client("list")) as string[],
    call: async (tool, args = {}) => {
      const result = JSON.parse(await client("call", tool, JSON.stringify(args))) as {
        content: { text: string }[];
        isError?: boolean;
      };
      return { text: result.content.map((block) => block.text).join(""), isError: result.isError === true };
    },
  };
}
