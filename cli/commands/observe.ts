import type { Command } from "commander";
import { operationsFor } from "../operations.js";
import { printJson, printTable } from "../output.js";

type GlobalOptions = { config?: string };

/** ps, status, audit-log: looking at sandboxes. */
export function registerObserve(program: Command): void {
  const operations = () => operationsFor(program.opts<GlobalOptions>().config);
  program
    .command("ps")
    .description("List sandboxes: NAME TEMPLATE IP MODE WORKSPACE STATUS")
    .option("--json", "print as JSON")
    .action(async (options: { json?: boolean }) => {
      const views = await (await operations()).list();
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
      const v = await (await operations()).status(name);
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
      const events = await (await operations()).auditLog(name);
      if (options.json === true) return void process.stdout.write(events.map((e) => JSON.stringify(e)).join("\n") + (events.length > 0 ? "\n" : ""));
      printTable(["TIME", "EVENT", "DETAIL"], events.map((e) => [e.time, e.event, [e.detail, e.exitCode === undefined ? "" : `exit ${e.exitCode}`].filter(Boolean).join(" ")]));
    });
}
