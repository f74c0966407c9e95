import type { Command } from "commander";
import { operationsOf } from "../operations.js";
import type { SandboxView } from "../../runtime/api/sandbox-view.js";
import { setTimeout as sleep } from "node:timers/promises";
import { printJson, printTable } from "../output.js";
import { UserError } from "../../runtime/core/errors.js";
import { forwardHost } from "../../runtime/state/port-spec.js";
import { escapeLine } from "../../runtime/gates/shared/agent-text.js";
import { escapeControl } from "../../runtime/gates/approvals/approval-view.js";

/** ps, status, audit-log: looking at sandboxes. */
export function registerObserve(program: Command): void {
  const operations = () => operationsOf(program);
  program
    .command("ps")
    .description(
      "List sandboxes: NAME TEMPLATE IP MODE WORKSPACE STATUS PORTS; then the warm pools' members (JSON: pool true)",
    )
    .option("--json", "print as JSON")
    .action(async (options: { json?: boolean }) => {
      const views = await (await operations()).list({});
      if (options.json === true) return printJson(views);
      const sandboxes = views.filter((v) => !v.pool);
      printTable(
        ["NAME", "TEMPLATE", "IP", "MODE", "WORKSPACE", "STATUS", "PORTS"],
        sandboxes.map((v) => [
          v.name,
          v.template,
          v.address,
          v.workspaceMode,
          v.workspace,
          v.status,
          portsText(v.ports),
        ]),
      );
      const pools = poolLines(views.filter((v) => v.pool));
      if (pools.length > 0)
        process.stdout.write(`\nwarm pools (an up of the template claims one):\n${pools.join("\n")}\n`);
    });

  program
    .command("status")
    .description("Show one sandbox in detail")
    .argument("<name>")
    .option("--json", "print as JSON")
    .action(async (name: string, options: { json?: boolean }) => {
      const v = await (await operations()).status({ name });
      if (options.json === true) return printJson(v);
      const uptime = v.startedAt === null ? "-" : `${Math.round((Date.now() - Date.parse(v.startedAt)) / 1000)} s`;
      const rows: [string, string][] = [
        ["name", v.name],
        ["template", v.template],
        ["status", v.status],
        ["address", v.address],
        ["runtime", v.runtime],
        ...(v.kernel === undefined ? [] : ([["kernel", v.kernel]] as [string, string][])),
        ["container", v.containerName],
        ["workspace", `${v.workspace} (${v.workspaceMode}${v.workspaceVcs === null ? "" : ` ${v.workspaceVcs}`})`],
        ["uptime", uptime],
        ["created", v.createdAt],
        [
          "limits",
          `${limitsText(v.resourceLimits)}${v.resourceLimitsFrom === "cgroup" ? " (in force: its cgroup)" : " (the template's: applied at its next start)"}`,
        ],
      ];
      rows.push(["network", networkText(v)]);
      if (v.apiProxy !== null) rows.push(["api proxy", apiProxyText(v)]);
      if (v.workspaceDisk !== null) rows.push(["disk", diskText(v.workspaceDisk)]);
      if ((v.ports ?? []).length > 0) rows.push(["ports", portsText(v.ports)]);
      if (v.pushGate !== null && v.pushGate !== undefined) rows.push(...pushGateRows(v.pushGate));
      if (v.seccomp.warning !== null) rows.push(["warning", v.seccomp.warning]);
      if (v.seccomp.refused !== null) rows.push(["refused", refusedLine(v.seccomp.refused)]);
      process.stdout.write(rows.map(([k, val]) => `${k.padEnd(10)} ${val}`).join("\n") + "\n");
    });

  program
    .command("logs")
    .description("Show what the agents printed: the last lines of each window of the sandbox's tmux session")
    .argument("<name>")
    .option("-n, --lines <count>", "lines per window", "50")
    .option("-f, --follow", "keep printing new output until interrupted")
    .action(async (name: string, options: { lines: string; follow?: boolean }) => {
      const lines = Number(options.lines);
      if (!Number.isInteger(lines) || lines < 1)
        throw new UserError(`--lines: "${options.lines}" is not a positive whole number`, "usage");
      const ops = await operations();
      let previous = new Map<string, string[]>();
      for (;;) {
        const logs = await ops.logs({ name, lines });
        for (const log of logs) {
          const fresh = newLines(previous.get(log.window), log.lines);
          if (fresh.length > 0)
            process.stdout.write(
              fresh.map((line) => (logs.length > 1 ? `[${log.window}] ${line}` : line)).join("\n") + "\n",
            );
        }
        if (options.follow !== true) return;
        previous = new Map(logs.map((log) => [log.window, log.lines]));
        await sleep(1000);
      }
    });

  program
    .command("audit-log")
    .description(
      "Show a sandbox's audit log (create, start, stop, reset, destroy, exec, snapshot, network changes, warnings, errors)",
    )
    .argument("<name>")
    .option("--json", "print as JSON lines")
    .action(async (name: string, options: { json?: boolean }) => {
      const events = await (await operations()).auditLog({ name });
      if (options.json === true)
        return void process.stdout.write(
          events.map((e) => JSON.stringify(e)).join("\n") + (events.length > 0 ? "\n" : ""),
        );
      printTable(
        ["TIME", "EVENT", "DETAIL"],
        // A detail may carry the sandbox's text (a warning, a failed up's reason): shown escaped.
        events.map((e) => [
          e.time,
          e.event,
          escapeLine([e.detail, e.exitCode === undefined ? "" : `exit ${e.exitCode}`].filter(Boolean).join(" ")),
        ]),
      );
    });
}

/** One line per template with members: "  basic: pool-1a2b3c4d (ready), pool-5e6f7a8b (stopped)". */
export function poolLines(members: readonly SandboxView[]): string[] {
  const byTemplate = new Map<string, string[]>();
  for (const member of members) {
    // A member runs no session until it is claimed: running without one is what ready means.
    const state = member.status === "no-session" ? "ready" : member.status;
    byTemplate.set(member.template, [...(byTemplate.get(member.template) ?? []), `${member.name} (${state})`]);
  }
  return [...byTemplate].map(([template, names]) => `  ${template}: ${names.join(", ")}`);
}

/**
 * The lines of `current` after what `previous` already showed: the longest suffix of `previous`
 * that `current` starts with is the overlap (the pane scrolled by the rest).
 */
export function newLines(previous: string[] | undefined, current: string[]): string[] {
  if (previous === undefined) return current;
  for (let overlap = Math.min(previous.length, current.length); overlap > 0; overlap--) {
    const tail = previous.slice(previous.length - overlap);
    if (tail.every((line, i) => line === current[i])) return current.slice(overlap);
  }
  return current;
}

/** "127.0.0.1:8080→3000,127.0.0.1:5173→5173" (forage-ctl port), or "-". */
function portsText(ports: SandboxView["ports"] | undefined): string {
  // A daemon of an older version answers views without them.
  if (ports === undefined || ports.length === 0) return "-";
  return ports.map((forward) => `${forwardHost}:${forward.hostPort}→${forward.port}`).join(",");
}

/**
 * Each ref a human approved `--always` at the push gate (later fast-forwards of it at that URL go
 * unasked), one row each; the ref came from the sandbox: escaped.
 */
function pushGateRows(gate: NonNullable<SandboxView["pushGate"]>): [string, string][] {
  return gate.alwaysPushed.map((pushed) => [
    "pushes",
    `${escapeControl(pushed.ref)} to ${escapeControl(pushed.url)} go unasked (approved --always)`,
  ]);
}

/** "12.0 MiB of 32.0 MiB (workspace.maxSize)"; the use is left out when btrfs did not say. */
function diskText(disk: NonNullable<SandboxView["workspaceDisk"]>): string {
  const mib = (bytes: number): string => `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${disk.usedBytes === null ? "" : `${mib(disk.usedBytes)} of `}${mib(disk.limitBytes)} (workspace.maxSize)`;
}

/** "memory 4G, tasks 4096, cpu 200%": a lifted limit says so, since every template has defaults. */
function limitsText(limits: SandboxView["resourceLimits"]): string {
  if (limits === null) return "- (template not in the config)";
  const memory = limits.memoryMax ?? "unlimited";
  const tasks = limits.tasksMax === null ? "unlimited" : String(limits.tasksMax);
  return `memory ${memory}, tasks ${tasks}${limits.cpuQuota === null ? "" : `, cpu ${limits.cpuQuota}`}`;
}

/** The mode in force (its table's) or the one its next start applies. */
function networkText(v: SandboxView): string {
  // A daemon of an older build sends no network: say so rather than fail.
  if ((v.network as SandboxView["network"] | undefined) === undefined)
    return "- (the running daemon is older than this forage-ctl: restart it)";
  if (v.network.from === "metadata") return `${v.network.mode ?? "-"} (applied at its next start)`;
  if (v.network.mode === "unknown")
    return "unknown: nft could not list its host-side table (forage-ctl network shows its guard)";
  if (v.network.mode === null)
    return `NOT IN FORCE: its host-side nftables table is missing, and with it the policy the host enforces (forage-ctl stop ${v.name}, then start ${v.name}, loads it again)`;
  return `${v.network.mode} (in force: its nftables table)`;
}

/** Where the sandbox's proxied agents reach the API proxy, or that nothing serves them now. */
function apiProxyText(v: SandboxView): string {
  if (v.apiProxy?.served === true) return `serving on ${v.apiProxy.address ?? "?"}`;
  if (v.status === "stopped" || v.status === "checkpointed") return `- (${v.status})`;
  return "not served: no API proxy runs for it, so its proxied agents' requests are refused (forage-ctl proxy --status)";
}

/** "3 syscalls by seccomp (unshare 2, keyctl 1)": what the filter refused, most first. */
function refusedLine(refused: { total: number; bySyscall: Record<string, number> }): string {
  const counts = Object.entries(refused.bySyscall).sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
  const detail = counts.length === 0 ? "" : ` (${counts.map(([name, n]) => `${name} ${n}`).join(", ")})`;
  // Counted from the kernel's log, which drops records under bursts: at least this many.
  return `${refused.total} syscalls by seccomp${detail}, at least`;
}
