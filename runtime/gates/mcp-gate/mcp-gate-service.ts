import { readFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Model, TemplateModel } from "../../../generator/model/model.js";
import type { RuntimePaths } from "../../core/paths.js";
import { changeMetadata } from "../../state/change-metadata.js";
import { readMetadata } from "../../state/metadata-store.js";
import type { SandboxMetadata } from "../../state/metadata.js";
import type { AskApproval } from "../approvals/approval.js";
import { gateAudit } from "../shared/gate-audit.js";
import { StandingToolApprovals } from "./call-judge.js";
import { handleMcpRequest } from "./mcp-gate-handler.js";
import { rpcError } from "./json-rpc.js";
import type { McpHttpRoute, McpServerRoute, McpStdioRoute } from "./mcp-route.js";
import { StdioServerLink } from "./stdio-link.js";

/** A template's MCP server, as the settings have it. */
type McpServerModel = TemplateModel["mcp"]["servers"][number];

/** How the gate starts a stdio server in its sandbox (the agent's sandbox's, made with it: runtime/sandbox/mcp-server-sandboxes.ts). */
export interface McpServerLauncher {
  /** The host argv that starts it, or a refusal saying why it cannot. */
  argv(agent: SandboxMetadata, server: McpServerModel): Promise<string[]>;
  /** Every value its secrets have: in its sandbox's copies (what it holds) and in the host's files now. */
  secretValues(agent: SandboxMetadata, server: McpServerModel): Promise<string[]>;
}

/** Requests one sandbox may have open at the gate at once (streams, calls waiting for a human, answers being read). */
const maxOpenPerSandbox = 16;

/** What the gate is told of the sandbox a request came from (the listener it reached says). */
export interface McpCaller {
  sandbox: string;
}

/** Serves one request of a sandbox to its MCP servers (the API proxy's listener hands over /_mcp/…). */
export type McpGate = (caller: McpCaller, req: IncomingMessage, res: ServerResponse) => void;

/**
 * The MCP gate as the API proxy's process serves it: each request is answered from the sandbox's
 * metadata and its template as the settings say now (a template edit applies to the next call),
 * each server's token read from its host secret file at the call (a rotated token is used at once,
 * and never held in the sandbox), asked calls put to `ask` (the daemon's approvals queue).
 * Approvals `--for` last while the sandbox does (a new sandbox of the same name starts with
 * none); `--always` ones are kept in its metadata.
 */
export function mcpGate(options: McpGateOptions): McpGate {
  const standing = new Map<string, StandingToolApprovals>();
  const open = new Map<string, number>();
  const links = new Map<string, StdioServerLink>();
  return (caller, req, res) => {
    // Each exchange may hold an answer (up to maxAnswerBytes) or a call waiting for a human: bounded per sandbox.
    const count = open.get(caller.sandbox) ?? 0;
    if (count >= maxOpenPerSandbox) {
      const body = rpcError(
        null,
        -32000,
        `sandbox ${caller.sandbox} has ${maxOpenPerSandbox} MCP requests open; wait for some to finish`,
      );
      return void res.writeHead(429, { "content-type": "application/json", "retry-after": "1" }).end(body);
    }
    open.set(caller.sandbox, count + 1);
    res.once("close", () => {
      const left = (open.get(caller.sandbox) ?? 1) - 1;
      if (left === 0) open.delete(caller.sandbox);
      else open.set(caller.sandbox, left);
    });
    serveRequest(options, { standing, links }, caller, req, res);
  };
}

interface McpGateOptions {
  settings: () => Model;
  paths: RuntimePaths;
  ask: AskApproval;
  log: (line: string) => void;
  /** Starts stdio servers in their sandboxes. */
  launch: McpServerLauncher;
}

/** What the gate keeps across requests: approvals `--for`, and the stdio servers it runs, per sandbox. */
interface GateState {
  standing: Map<string, StandingToolApprovals>;
  links: Map<string, StdioServerLink>;
}

/** One request: the sandbox's servers and standing approvals looked up, then handed to the handler. */
function serveRequest(
  options: McpGateOptions,
  { standing, links }: GateState,
  caller: McpCaller,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  const { paths, ask, log } = options;
  void routeOf(options, links, caller.sandbox).then(
    (found) => {
      if (found === undefined) return void res.writeHead(404).end("forage: this sandbox has no MCP servers\n");
      const { metadata, servers } = found;
      const key = sandboxKey(metadata);
      const approvals = standing.get(key) ?? new StandingToolApprovals();
      standing.set(key, approvals);
      // Approved --always (kept in its metadata, so a restarted gate knows them): exact names,
      // standing after the template's own lists, whose deny still wins.
      for (const [server, tools] of Object.entries(metadata.mcpAlwaysAllowed ?? {}))
        for (const tool of tools) approvals.keep(server, tool, Number.POSITIVE_INFINITY);
      const audit = gateAudit(paths, metadata.name, "mcp-call", log);
      handleMcpRequest({ sandbox: metadata.name, servers }, req, res, {
        ask,
        standing: approvals,
        audit: (_sandbox, detail) => void audit(detail),
        keepAlways: (server, tool) => keepAlways(paths, metadata.name, server, tool, log),
      });
    },
    (error: unknown) => {
      log(`MCP gate: ${caller.sandbox}: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) res.writeHead(502).end("forage: the MCP gate could not read this sandbox's servers\n");
    },
  );
}

/** A sandbox as the gate keys what it keeps for it: by its creation too (a name used again starts afresh). */
function sandboxKey(metadata: SandboxMetadata): string {
  return `${metadata.name}@${metadata.createdAt}`;
}

/** The sandbox's servers as routes, secrets read now; undefined when it has none (or is gone). */
async function routeOf(
  { settings, paths, launch, log }: McpGateOptions,
  links: Map<string, StdioServerLink>,
  sandbox: string,
): Promise<{ metadata: SandboxMetadata; servers: Map<string, McpServerRoute> } | undefined> {
  const model = settings();
  const metadata = await readMetadata(paths, sandbox);
  const template = model.templates.find((candidate) => candidate.name === metadata?.template);
  if (metadata === undefined || template === undefined || template.mcp.servers.length === 0) return undefined;
  const servers = new Map<string, McpServerRoute>();
  for (const server of template.mcp.servers) {
    if (server.command === null) {
      servers.set(server.name, await serverRoute(model, server));
      continue;
    }
    // Read first: a link is made only for a server whose secrets the gate can mask.
    const secrets = await launch.secretValues(metadata, server);
    const route: Omit<McpStdioRoute, "link"> = { name: server.name, secrets, policy: server.tools };
    servers.set(server.name, { ...route, link: linkOf(links, metadata, server, launch, log) });
  }
  return { metadata, servers };
}

/**
 * The link to a stdio server for this sandbox: one process per sandbox, server and command, until
 * it ends. A command edited since closes the process of the old one.
 */
function linkOf(
  links: Map<string, StdioServerLink>,
  metadata: SandboxMetadata,
  server: McpServerModel,
  launch: McpServerLauncher,
  log: (line: string) => void,
): StdioServerLink {
  const prefix = `${sandboxKey(metadata)}/${server.name}/`;
  const key = `${prefix}${JSON.stringify(server.command)}`;
  const found = links.get(key);
  if (found !== undefined) return found;
  for (const [other, link] of links)
    if (other.startsWith(prefix)) {
      links.delete(other);
      void link.close();
    }
  const link = new StdioServerLink(
    server.name,
    () => launch.argv(metadata, server),
    // Its stderr stays in its sandbox: `why` is the gate's own words (an exit code, a limit).
    (why) => {
      if (links.get(key) === link) links.delete(key);
      log(`MCP gate: ${metadata.name}: ${why}`);
    },
  );
  links.set(key, link);
  return link;
}

/** One server as the gate reaches it: its token read now from the host's file and put where `header` and `value` say. */
export async function serverRoute(settings: Pick<Model, "host">, server: McpServerModel): Promise<McpHttpRoute> {
  if (server.url === null) throw new Error(`server ${server.name} is run by command, not reached by url`);
  const headers: Record<string, string> = {};
  const secrets: string[] = [];
  if (server.secret !== null) {
    const file = settings.host.secrets[server.secret];
    if (file === undefined) throw new Error(`server ${server.name}: secret "${server.secret}" is not in the settings`);
    const token = (await readFile(file, "utf8")).replace(/\r?\n$/, "");
    // A token that would end or split the header line is refused, as the API proxy refuses such keys.
    if (!/^[\x21-\x7e]{1,4096}$/.test(token))
      throw new Error(`server ${server.name}: the token in ${file} is not one line of visible ASCII`);
    headers[server.header] = server.value.split("{key}").join(token);
    secrets.push(token, headers[server.header] ?? token);
  }
  return { name: server.name, url: new URL(server.url), headers, secrets, policy: server.tools };
}

async function keepAlways(
  paths: RuntimePaths,
  sandbox: string,
  server: string,
  tool: string,
  log: (line: string) => void,
): Promise<void> {
  const kept = await changeMetadata(paths, sandbox, 10, (metadata) => {
    const tools = metadata.mcpAlwaysAllowed?.[server] ?? [];
    if (tools.includes(tool)) return true;
    return { ...metadata, mcpAlwaysAllowed: { ...metadata.mcpAlwaysAllowed, [server]: [...tools, tool].sort() } };
  });
  if (!kept)
    log(
      `MCP gate: ${sandbox}: ${server} tool ${JSON.stringify(tool)} approved --always, but its metadata could not be changed`,
    );
}
