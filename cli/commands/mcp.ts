import type { Command } from "commander";
import type { AuditEvent } from "../../runtime/core/audit-log.js";
import type { McpView } from "../../runtime/api/sandbox-view.js";
import { escapeLine } from "../../runtime/gates/shared/agent-text.js";
import { operationsOf } from "../operations.js";
import { printJson } from "../output.js";
import { UserError } from "../../runtime/core/errors.js";

/** `forage-ctl mcp NAME`: a sandbox's MCP servers, as the MCP gate serves them, and their last calls. */
export function registerMcp(program: Command): void {
  program
    .command("mcp")
    .description(
      "Show a sandbox's MCP servers (reached through the MCP gate), their tools policy, and the last tool calls",
    )
    .argument("<name>", "the sandbox")
    .option("-n, --calls <count>", "how many of the last calls to show", "20")
    .option("--json", "print as JSON")
    .addHelpText(
      "after",
      [
        "",
        "Each server is reached by the sandbox at the gate's URL; the gate adds the server's token (read",
        "on the host from the named secret: the sandbox never holds it), or runs a stdio server in a",
        "sandbox of its own (NAME--SERVER, made by up and removed by down with NAME, holding the",
        "server's secrets as its environment), and judges each tool call:",
        "deny wins over ask, ask over allow; a tool no list names is asked about. Asked calls wait in",
        "forage-ctl approvals (approve ID --for 10m lets the tool through for a while, --always for",
        "this sandbox's life). Every call is a line of the audit log (forage-ctl audit-log NAME).",
        "",
        "Examples:",
        "  forage-ctl mcp fix-42",
        "  forage-ctl mcp fix-42 -n 100 --json",
      ].join("\n"),
    )
    .action(async (name: string, options: { calls: string; json?: boolean }) => {
      const count = Number(options.calls);
      if (!Number.isInteger(count) || count < 0)
        throw new UserError(`--calls: "${options.calls}" is not a whole number of calls`, "usage");
      const ops = await operationsOf(program);
      const [view, events] = await Promise.all([ops.status({ name }), ops.auditLog({ name })]);
      const mcp: McpView = view.mcp ?? { servers: [] };
      const allCalls = events.filter((event) => event.event === "mcp-call");
      const calls = count === 0 ? [] : allCalls.slice(-count);
      const served = view.apiProxy?.served === true;
      // A stdio server's state is its sandbox's: running, stopped, or not there (made by up).
      const servers = await Promise.all(
        mcp.servers.map(async (server) => ({
          ...server,
          sandboxStatus:
            server.sandbox === null
              ? null
              : ((await ops.status({ name: server.sandbox }).catch(() => undefined))?.status ?? "missing"),
        })),
      );
      if (options.json === true) return printJson({ sandbox: view.name, served, servers, calls });
      if (mcp.servers.length === 0)
        return void process.stdout.write(
          `sandbox ${view.name} has no MCP servers (its template ${view.template} names none in mcp.servers)\n`,
        );
      process.stdout.write(`${serverLines(view.name, served, servers).join("\n")}\n\n${callLines(calls).join("\n")}\n`);
    });
}

/** A server as `mcp` shows it: with its sandbox's state when it runs in one. */
type ShownServer = McpView["servers"][number] & { sandboxStatus: string | null };

/** Each server: where the sandbox and the gate reach it, its token or secrets, its policy, the tools approved --always. */
function serverLines(sandbox: string, served: boolean, servers: ShownServer[]): string[] {
  const gate = served
    ? "the gate serves it"
    : "the gate does not serve it now (is the sandbox running? forage-ctl proxy --status)";
  const list = (tools: string[]): string => (tools.length === 0 ? "-" : tools.join(", "));
  return [
    `MCP servers of ${sandbox} (${gate}):`,
    ...servers.flatMap((server) => [
      `  ${server.name}`,
      `    sandbox's URL  ${server.gateUrl}`,
      ...(server.url === null ? stdioLines(server) : [`    server         ${server.url}`]),
      ...(server.url === null
        ? []
        : [`    token          ${server.secret === null ? "none" : `secret "${server.secret}", added by the gate`}`]),
      `    allow          ${list(server.allow)}`,
      `    ask            ${list(server.ask)} (and every tool no list names)`,
      `    deny           ${list(server.deny)}`,
      ...(server.alwaysAllowed.length === 0 ? [] : [`    approved       ${list(server.alwaysAllowed)} (--always)`]),
    ]),
  ];
}

/** A stdio server: its command, the sandbox it runs in (and that sandbox's state), the secrets it gets there. */
function stdioLines(server: ShownServer): string[] {
  const secrets = Object.entries(server.env).map(([variable, secret]) => `${variable} from secret "${secret}"`);
  return [
    `    command        ${(server.command ?? []).map((word) => JSON.stringify(word)).join(" ")}`,
    `    sandbox        ${server.sandbox ?? "none (the sandbox's name leaves no room for one)"} (${server.sandboxStatus ?? "missing"})`,
    `    secrets        ${secrets.length === 0 ? "none" : `${secrets.join(", ")}, in the server's sandbox only`}`,
  ];
}

/** The last calls, oldest first; the tool's name is the sandbox's text: escaped. */
function callLines(calls: AuditEvent[]): string[] {
  if (calls.length === 0) return ["no tool calls yet"];
  return ["last tool calls:", ...calls.map((call) => `  ${call.time}  ${escapeLine(call.detail ?? "")}`)];
}
