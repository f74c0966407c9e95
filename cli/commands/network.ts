import type { Command } from "commander";
import type { z } from "zod";
import { allowEntry } from "../../generator/config/schema/allow-entry.js";
import { networkModes } from "../../generator/config/network-modes.js";
import type { DenialRecord } from "../../runtime/gates/network/denials.js";
import type { NetworkView } from "../../runtime/sandbox/network-operations.js";
import { denyEntry } from "../../generator/policy/network/policy-schema.js";
import type { Request } from "../../runtime/api/calls.js";
import { dropUndefined } from "../../generator/lib/drop-undefined.js";
import { operationsOf } from "../operations.js";
import { printJson, printTable } from "../output.js";
import { UserError } from "../../runtime/core/errors.js";
import { escapeLine } from "../../runtime/gates/shared/agent-text.js";
import { issueList } from "../../generator/lib/issue-list.js";

/** network NAME [MODE] [--allow …] [--deny …]; denials NAME [-f]. */
export function registerNetwork(program: Command): void {
  const operations = () => operationsOf(program);
  program
    .command("network")
    .description("Show or change a sandbox's network policy, live (none, restricted, full)")
    .argument("<sandbox>")
    .argument("[mode]", `new mode: ${networkModes.join(", ")}, or learn (full, recording every name resolved)`)
    .option(
      "--allow <hosts>",
      "add to the allowlist: host, *.suffix, optional :port; comma-separated, repeatable",
      collect,
      [],
    )
    .option(
      "--deny <hosts>",
      "add names the sandbox's DNS filter never resolves, whatever the mode (checked before the allowlist): host or *.suffix",
      collect,
      [],
    )
    .option("--sni", "also check TLS SNI / HTTP Host of TCP 443 and 80 against the allowlist (restricted)")
    .option("--no-sni", "stop checking SNI / Host")
    .option(
      "--ask",
      "hold a name not on the allowlist and ask (forage-ctl approvals) instead of refusing it (restricted)",
    )
    .option("--no-ask", "refuse names not on the allowlist again")
    .option("--reset", "start again from the template's policy, then apply the rest")
    .option("--suggest", "print the template's allow list change that would cover the names learned (learn mode)")
    .option(
      "--write",
      "with --suggest: make that change in the config file itself (TypeScript, YAML, JSON; never a generated forage.json), once you say yes on the terminal",
    )
    .option("--yes", "with --suggest --write: write without asking (for scripts; without a terminal, --write needs it)")
    .option("--json", "print as JSON")
    .addHelpText(
      "after",
      `
Changes apply at once to a running sandbox (its host-side table is replaced atomically, and open
connections the new policy refuses are reset) and are kept in its metadata: restarting the
sandbox or the daemon keeps them. Without a mode or option
it shows the policy in force and the network guard's counters.

  none        nothing leaves the sandbox; its DNS filter answers REFUSED
  restricted  only names on the allowlist resolve, and only the addresses they resolved to
              (for twice the answer's TTL, at least 5 minutes) are reachable; no other resolver, no DoT
  --sni       (restricted) TCP 443 and 80 go through a gate that reads the TLS SNI or HTTP Host,
              refuses names not allowed even on an allowed (shared) address, and connects to
              the name itself; connections without a name, and QUIC, are refused. Refused
              beside none or full; a sandbox switched to none or full drops it
  --ask       (restricted) a name not on the allowlist is held by the DNS filter (nothing is
              sent upstream) and becomes an approval (forage-ctl approvals) for port 443:
              approve --once admits it on 443 at the addresses of that answer while the
              sandbox runs (another answer asks again), --for DURATION until then, --always
              adds name:443 to this sandbox's allowlist; deny (or no answer by the deadline)
              refuses it (NXDOMAIN, recorded as a denial)
  full        routed and NATed through the host (through externalInterface when it is set)
  learn       full, and every name the sandbox resolves is recorded with its addresses (kept
              until down, at most 1024 names); leave it with another mode. Then --suggest
              prints the smallest allow list covering them (a *.suffix only where three or more
              names below it were seen, never at or over a suffix of the Public Suffix List,
              never over a denied name) and --suggest --write shows it, asks, and adds it to
              the template in the config (--yes: without asking)

What was refused: forage-ctl denials SANDBOX (inside: /run/forage/network/denials.jsonl).

Example:
  forage-ctl network fix-42 restricted --allow packages.example.org,files.example.org:443
  forage-ctl network fix-42 --deny '*.paste.example'
  forage-ctl network fix-42 --reset
  forage-ctl network fix-42 learn; …; forage-ctl network fix-42 --suggest --write; forage-ctl network fix-42 restricted`,
    )
    .action(
      async (
        sandbox: string,
        mode: string | undefined,
        options: NetworkOptions & { json?: boolean; suggest?: boolean; write?: boolean; yes?: boolean },
      ) => {
        const change = networkChange(mode, options);
        if (options.write === true && options.suggest !== true)
          throw new UserError("network: --write goes with --suggest (it writes the suggested change)", "usage");
        if (options.yes === true && options.write !== true)
          throw new UserError(
            "network: --yes goes with --suggest --write (it answers the question before writing)",
            "usage",
          );
        if (options.suggest === true && change !== null)
          throw new UserError(
            "network: --suggest only reads: give it without a mode or --allow/--deny/--sni/--reset",
            "usage",
          );
        const view = await (await operations()).network({ name: sandbox, change });
        if (options.suggest === true) {
          const { suggestCommand } = await import("./network-suggest.js");
          return suggestCommand(view, {
            write: options.write === true,
            yes: options.yes === true,
            json: options.json === true,
            config: program.opts<{ config?: string }>().config,
          });
        }
        if (options.json === true) return printJson(view);
        printNetwork(view);
      },
    );

  program
    .command("denials")
    .description("List what a sandbox's network refused: TIME KIND DESTINATION RULE COUNT")
    .argument("<sandbox>")
    .option("-f, --follow", "keep printing new refusals until interrupted")
    .option("--json", "print as JSON (with --follow: one JSON object per line)")
    .action(async (sandbox: string, options: { follow?: boolean; json?: boolean }) => {
      const ops = await operations();
      const records = await ops.denials({ name: sandbox });
      if (options.follow !== true) {
        if (options.json === true) return printJson(records);
        return printTable(["TIME", "KIND", "DESTINATION", "RULE", "COUNT"], records.map(denialRow));
      }
      let printed = 0;
      for (;;) {
        const all = await ops.denials({ name: sandbox });
        // The log rotates by size: when it shrank, everything in it is new.
        const fresh = all.length >= printed ? all.slice(printed) : all;
        for (const record of fresh)
          process.stdout.write(
            options.json === true ? `${JSON.stringify(record)}\n` : `${denialRow(record).join("  ")}\n`,
          );
        printed = all.length;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    });
}

function collect(value: string, previous: string[]): string[] {
  return [
    ...previous,
    ...value
      .split(",")
      .map((entry) => entry.trim())
      .filter((entry) => entry !== ""),
  ];
}

interface NetworkOptions {
  allow: string[];
  deny: string[];
  /** commander: true for --sni, false for --no-sni, undefined for neither. */
  sni?: boolean;
  /** Likewise for --ask / --no-ask. */
  ask?: boolean;
  reset?: boolean;
}

function networkChange(mode: string | undefined, options: NetworkOptions): Request<"network">["change"] {
  const learn = mode === "learn";
  const known = networkModes.find((each) => each === mode);
  if (mode !== undefined && known === undefined && !learn)
    throw new UserError(`network: mode "${mode}" is not one of ${networkModes.join(", ")}, learn`, "usage");
  const allow = checkEntries("--allow", options.allow, allowEntry);
  const deny = checkEntries("--deny", options.deny, denyEntry);
  if (
    mode === undefined &&
    allow.length === 0 &&
    deny.length === 0 &&
    options.sni === undefined &&
    options.ask === undefined &&
    options.reset !== true
  )
    return null;
  return dropUndefined({
    mode: known,
    allow: allow.length === 0 ? undefined : allow,
    deny: deny.length === 0 ? undefined : deny,
    sni: options.sni,
    ask: options.ask,
    reset: options.reset === true ? true : undefined,
    learn: learn ? (true as const) : undefined,
  });
}

function checkEntries(option: string, entries: string[], schema: z.ZodType<string>): string[] {
  for (const entry of entries) {
    const parsed = schema.safeParse(entry);
    if (!parsed.success) throw new UserError(`${option} "${entry}": ${issueList(parsed.error.issues)}`, "usage");
  }
  return entries;
}

function printNetwork(view: NetworkView): void {
  const { policy } = view;
  const lines = [
    `sandbox   ${view.name} (${view.running ? "running" : "stopped"})`,
    `mode      ${policy.learn === true ? "full, learning: every name resolved is recorded" : policy.mode}${policy.mode === view.templatePolicy.mode ? "" : ` (template: ${view.templatePolicy.mode})`}`,
    `allow     ${policy.allow.length === 0 ? "-" : policy.allow.join(", ")}${policy.mode === "restricted" ? "" : " (used in restricted mode)"}`,
    `deny      ${policy.deny.length === 0 ? "-" : policy.deny.join(", ")}`,
    `sni       ${policy.sni ? "on: TLS SNI and HTTP Host of TCP 443 and 80 are checked" : "off"}`,
    `ask       ${policy.ask === true ? "on: a name not on the allowlist waits for forage-ctl approve / deny" : "off"}`,
  ];
  if (view.guard !== null) {
    const g = view.guard;
    lines.push(`guard     pid ${g.pid}, DNS filter on port ${g.dnsPort}, upstream ${g.upstream}, since ${g.startedAt}`);
    lines.push(
      `counters  ${g.queries} queries, ${g.refusedNames} names refused, ${g.refusedPackets} packets refused, ${g.upstreamFailures} upstream failures`,
    );
    if ((g.admitted ?? []).length > 0)
      lines.push(`admitted  ${admittedText(g)} (approved when asked, for this run: --suggest makes them permanent)`);
  } else if (view.running) {
    lines.push("guard     NOT RUNNING: no name resolves (restart the sandbox: forage-ctl stop / start)");
  }
  lines.push(...namesLines(view));
  process.stdout.write(`${lines.join("\n")}\n`);
}

/** `pypi.example:443 at 192.0.2.7, 192.0.2.8 until 2026-…`: each admitted name with what its approval covers. */
function admittedText(guard: NonNullable<NetworkView["guard"]>): string {
  // A guard from before admissions were shown names only its names.
  if (guard.admissions === undefined) return (guard.admitted ?? []).join(", ");
  return guard.admissions
    .map(({ name, port, addresses }) => {
      const ends = [...new Set(addresses.map((each) => each.until))];
      const until =
        ends.length === 1 && ends[0] === null
          ? ""
          : ` until ${ends.map((end) => end ?? "the sandbox stops").join(" / ")}`;
      return `${name}:${port} at ${addresses.length === 0 ? "(its answer, being admitted)" : addresses.map((each) => each.address).join(", ")}${until}`;
    })
    .join("; ");
}

/** Shown in full up to this many names each; --json has them all. */
const namesShown = 20;

function namesLines(view: NetworkView): string[] {
  const lines: string[] = [];
  const more = (count: number): string =>
    count > namesShown ? `, … ${count - namesShown} more (--json lists them)` : "";
  if (view.deniedNames.length > 0) {
    const shown = view.deniedNames
      .slice(0, namesShown)
      .map((each) => `${each.name} (${each.rule}${each.count > 1 ? ` ×${each.count}` : ""})`);
    lines.push(`denied    ${shown.join(", ")}${more(view.deniedNames.length)}`);
  }
  if (view.learned.length > 0) {
    const full = view.learned.length >= view.learnedLimit ? ` (the limit: names after these were not recorded)` : "";
    lines.push(
      `learned   ${view.learned.length} names${full}; forage-ctl network ${view.name} --suggest turns them into allow entries`,
    );
    for (const each of view.learned.slice(0, namesShown))
      lines.push(`          ${each.name}  ${each.addresses.length === 0 ? "-" : each.addresses.join(", ")}`);
    if (view.learned.length > namesShown)
      lines.push(`          … ${view.learned.length - namesShown} more (--json lists them)`);
  }
  return lines;
}

function denialRow(record: DenialRecord): string[] {
  const where =
    record.address === undefined
      ? (record.name ?? "")
      : `${record.address}${record.port === undefined ? "" : `:${record.port}`}${record.name === undefined ? "" : ` (${record.name})`}`;
  // The name is what the sandbox asked for (DNS, SNI, Host): shown escaped.
  return [record.time, record.kind, escapeLine(where), escapeLine(record.rule), String(record.count)];
}
