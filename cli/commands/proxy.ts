import type { Command } from "commander";
import { readProxyStatus, type ProxyStatus } from "../../runtime/gates/api-proxy/proxy-status.js";
import { runtimePaths } from "../../runtime/core/paths.js";
import { printJson, printTable } from "../output.js";
import { runtimeContext } from "../runtime-context.js";
import { UserError } from "../../runtime/core/errors.js";

export function registerProxy(program: Command): void {
  program
    .command("proxy")
    .description("Run the API proxy in the foreground (root), or show the running one's health with --status")
    .option("--status", "show the running proxy's sandboxes, keys and counters, then exit")
    .option("--json", "with --status: print JSON")
    .addHelpText(
      "after",
      `
Agents with auth "proxy" or "placeholder" reach their API through the proxy at
http://<sandbox's host end>:<proxy.port>/<agent>/… ; it identifies the sandbox by the connection's
source address, adds or swaps in the key (read from the host's secret file, never the sandbox's),
applies the template's proxyFilter and proxy.rateLimit, and writes one JSONL line per request to
proxy.auditLog (never a key, body or query). The daemon runs it when the config needs it; run
this instead on hosts without the daemon. SIGHUP (or a change to a secret file) reloads the keys.

Examples:
  sudo forage-ctl proxy
  forage-ctl proxy --status --json`,
    )
    .action(async (options: { status?: boolean; json?: boolean }) => {
      const configPath = program.opts<{ config?: string }>().config;
      if (options.status === true) return showStatus(configPath, options.json === true);
      const context = await runtimeContext(configPath);
      const running = await readProxyStatus(context.paths);
      if (running !== undefined)
        throw new UserError(`an API proxy already runs (pid ${running.pid}); see forage-ctl proxy --status`, "general");
      const { startApiProxy } = await import("../../runtime/gates/api-proxy/api-proxy.js");
      const log = (line: string): void =>
        void process.stderr.write(`${new Date().toISOString()} forage-proxy: ${line}\n`);
      // The MCP gate served beside it asks through the daemon's queue (root's socket), as the guard host does.
      const { mcpGate } = await import("../../runtime/gates/mcp-gate/mcp-gate-service.js");
      const { askThroughDaemon } = await import("../../runtime/daemon/approval-client.js");
      const settings = () => context.settings;
      const { serverLauncher } = await import("../../runtime/sandbox/mcp-server-sandboxes.js");
      const launch = serverLauncher(() => context);
      const mcp = mcpGate({ settings, paths: context.paths, ask: askThroughDaemon({ log }), log, launch });
      const proxy = await startApiProxy(context.settings, context.paths, log, settings, mcp);
      process.on(
        "SIGHUP",
        () =>
          void proxy.reload().then(
            () => log("keys reloaded"),
            (error: unknown) => log(`keys not reloaded: ${String(error)}`),
          ),
      );
      await new Promise<void>((resolve) => {
        for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => resolve());
      });
      await proxy.close();
      log("stopped");
    });
}

async function showStatus(configPath: string | undefined, json: boolean): Promise<void> {
  const context = await runtimeContext(configPath).catch(() => undefined);
  const status = await readProxyStatus(context?.paths ?? runtimePaths("/var/lib/forage"));
  if (status === undefined) {
    if (json) return printJson(null);
    throw new UserError(
      "no API proxy is running (the daemon starts one when the config needs it; or run forage-ctl proxy)",
      "general",
    );
  }
  if (json) return printJson(status);
  printStatus(status);
}

function printStatus(status: ProxyStatus): void {
  const c = status.counters;
  const refused =
    Object.entries(c.refused)
      .map(([kind, count]) => `${kind} ${count}`)
      .join(", ") || "none";
  process.stdout.write(
    `API proxy pid ${status.pid}, port ${status.port}, since ${status.startedAt}\n` +
      `requests ${c.requests} (forwarded ${c.forwarded}, active ${c.active}); refused: ${refused}; upstream errors ${c.upstreamErrors}\n` +
      `bytes in ${c.requestBytes}, out ${c.responseBytes}; connections from wrong sources ${c.connectionsRefused}\n` +
      `keys loaded: ${status.keys.loaded.join(", ") || "none"} (reloaded ${status.keys.reloads}×); audit log ${status.auditLog}\n`,
  );
  if (status.sandboxes.length > 0)
    printTable(
      ["SANDBOX", "LISTENS ON", "AGENTS"],
      status.sandboxes.map((s) => [s.name, s.address, s.agents.join(", ")]),
    );
}
