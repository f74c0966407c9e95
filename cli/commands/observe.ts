import type { Command } from "commander";
import { sandboxLink } from "../../runtime/network/sandbox-link.js";
import { readEvents } from "../../runtime/sandbox/audit-log.js";
import { requireSandbox, type RuntimeContext } from "../../runtime/sandbox/context.js";
import { hasSession } from "../../runtime/sandbox/session.js";
import { isRunning } from "../../runtime/sandbox/start-stop.js";
import { listMetadata } from "../../runtime/state/metadata-store.js";
import type { SandboxMetadata } from "../../runtime/state/metadata.js";
import { printJson, printTable } from "../output.js";
import { runtimeContext } from "../runtime-context.js";

type GlobalOptions = { config?: string };

/** One sandbox as ps and status show it. */
interface SandboxView {
  name: string;
  template: string;
  address: string;
  workspaceMode: string;
  workspace: string;
  status: "running" | "no-session" | "stopped";
  slot: number;
  containerName: string;
  startedAt: string | null;
  createdAt: string;
  pid: number | null;
}

async function view(context: RuntimeContext, metadata: SandboxMetadata): Promise<SandboxView> {
  const running = await isRunning(context, metadata);
  const status = !running ? "stopped" : (await hasSession(context, metadata)) ? "running" : "no-session";
  return {
    name: metadata.name,
    template: metadata.template,
    address: sandboxLink(metadata.slot, context.settings.host.network.base).sandboxAddress,
    workspaceMode: metadata.workspace.mode,
    workspace: metadata.workspace.hostPath,
    status,
    slot: metadata.slot,
    containerName: metadata.containerName,
    startedAt: running ? metadata.startedAt : null,
    createdAt: metadata.createdAt,
    pid: running ? metadata.pid : null,
  };
}

/** ps, status, audit-log: looking at sandboxes. */
export function registerObserve(program: Command): void {
  const config = (): string | undefined => program.opts<GlobalOptions>().config;
  program
    .command("ps")
    .description("List sandboxes: NAME TEMPLATE IP MODE WORKSPACE STATUS")
    .option("--json", "print as JSON")
    .action(async (options: { json?: boolean }) => {
      const context = await runtimeContext(config());
      const views = await Promise.all((await listMetadata(context.paths)).map((m) => view(context, m)));
      if (options.json === true) return printJson(views);
      printTable(
        ["NAME", "TEMPLATE", "IP", "MODE", "WORKSPACE", "STATUS"],
        views.map((v) => [v.name, v.template, v.address, v.workspaceMode, v.workspace, v.status]),
      );
    });

  program
    .command("status")
    .description("Show one sandbox in detail")
    .argument("<name>")
    .option("--json", "print as JSON")
    .action(async (name: string, options: { json?: boolean }) => {
      const context = await runtimeContext(config());
      const v = await view(context, await requireSandbox(context, name));
      if (options.json === true) return printJson(v);
      const uptime = v.startedAt === null ? "-" : `${Math.round((Date.now() - Date.parse(v.startedAt)) / 1000)} s`;
      const rows: [string, string][] = [
        ["name", v.name], ["template", v.template], ["status", v.status], ["address", v.address],
        ["container", v.containerName], ["workspace", `${v.workspace} (${v.workspaceMode})`], ["uptime", uptime], ["created", v.createdAt],
      ];
      process.stdout.write(rows.map(([k, val]) => `${k.padEnd(10)} ${val}`).join("\n") + "\n");
    });

  program
    .command("audit-log")
    .description("Show a sandbox's audit log (create, start, stop, reset, destroy, exec, errors)")
    .argument("<name>")
    .option("--json", "print as JSON lines")
    .action(async (name: string, options: { json?: boolean }) => {
      const context = await runtimeContext(config());
      const events = await readEvents(context.paths, name);
      if (options.json === true) return void process.stdout.write(events.map((e) => JSON.stringify(e)).join("\n") + (events.length > 0 ? "\n" : ""));
      printTable(["TIME", "EVENT", "DETAIL"], events.map((e) => [e.time, e.event, [e.detail, e.exitCode === undefined ? "" : `exit ${e.exitCode}`].filter(Boolean).join(" ")]));
    });
}
