import type { Command } from "commander";
import { Option } from "commander";
import { setTimeout as sleep } from "node:timers/promises";
import type { Request } from "../../runtime/api/calls.js";
import { approvalAnswers, approvalModes } from "../../runtime/gates/approvals/approval-answers.js";
import { approvalIdPattern } from "../../runtime/gates/approvals/approval-id.js";
import { approvalJson } from "../../runtime/gates/approvals/approval-json.js";
import { subjectSummary, type ApprovalView } from "../../runtime/gates/approvals/approval-view.js";
import { escapeSandboxText } from "../../runtime/gates/shared/agent-text.js";
import { SandboxError } from "../../runtime/core/errors.js";
import { callDaemon } from "../../runtime/daemon/client.js";
import { approvalsSocket } from "../approvals-socket.js";
import { approvalDetail } from "../approval-detail.js";
import { printJson, printTable } from "../output.js";
import { parseApprovalDuration } from "../approval-duration.js";
import { shortDuration } from "../short-duration.js";

/** How often --watch asks the daemon: cheap (one small call), and a human notices within half a second. */
const watchIntervalMs = 500;
/** The WHAT column's width: a row fits a wide terminal; subjectSummary says what each kind keeps. */
const whatWidth = 100;

/** approvals [--watch] [--json]; approvals show ID [--json]; approve ID [--once|--always|--for DURATION]; deny ID. */
export function registerApprovals(program: Command): void {
  const socket = () => approvalsSocket(program.opts<{ config?: string }>().config);
  const approvals = program
    .command("approvals")
    .description("List the requests waiting for your answer: hosts, pushes and SSH signatures sandboxes asked for")
    .option("--watch", `redraw every ${watchIntervalMs} ms and ring the terminal bell on a new request (Ctrl-C stops)`)
    .option("--json", "print as JSON (with --watch: one line each time the list changes)")
    .addHelpText(
      "after",
      `
A sandbox's gates (its DNS filter in ask mode, the push gate, the SSH agent) hold what reaches
past its policy and ask here. Answer with forage-ctl approve ID or forage-ctl deny ID; a request
nobody answers by its DEADLINE is denied. Only root and the configured user may list and answer.
Every question and answer is in the sandbox's audit log (forage-ctl audit-log NAME).
WHAT is mostly the sandbox's own text, shown with every invisible or direction-changing character
escaped (\\u200b, \\x1b; a backslash as \\\\), also with --json; a long host name is cut at its start,
keeping its domain. forage-ctl approvals show ID shows all of a request (a push's commits and
diffstat, a key's comment and destination), the sandbox's text marked.

Examples:
  forage-ctl approvals --watch
  forage-ctl approvals show k7q2xm`,
    )
    .action(async (options: { watch?: boolean; json?: boolean }) => {
      const path = await socket();
      if (options.watch === true) return watch(path, options.json === true);
      const pending = await callDaemon("approvals", {}, path);
      if (options.json === true) return printJson(pending.map(approvalJson));
      printPending(pending, Date.now());
    });
  registerShow(approvals, socket);

  program
    .command("approve")
    .description("Answer a pending request yes: once (default), always, or for a while")
    .argument("<id>", "the request's id, as forage-ctl approvals shows it")
    .addOption(new Option("--once", "this request only (the default)").conflicts(["always", "for"]))
    .addOption(
      new Option("--always", "this request, and the same again for good (not for ssh-sign)").conflicts(["for"]),
    )
    .option(
      "--for <duration>",
      "this request, and the same again without asking for this long, e.g. 10m, 1h (at most 24h)",
    )
    .option("--json", "print the answered request as JSON")
    .addHelpText(
      "after",
      `\nWhat each answer does, by the request's KIND:\n${answersHelp()}\nA kind that refuses a way of approving says why (exit 64); the request stays pending.

Examples:
  forage-ctl approve k7q2xm              # once
  forage-ctl approve k7q2xm --always     # a host: into the sandbox's allowlist; a push: that ref, for good
  forage-ctl approve k7q2xm --for 10m    # for ten minutes`,
    )
    .action(async (id: string, options: { once?: boolean; always?: boolean; for?: string; json?: boolean }) => {
      const request: Request<"approve"> =
        options.for !== undefined
          ? { id, mode: "for", forMs: parseApprovalDuration(options.for) }
          : { id, mode: options.always === true ? "always" : "once" };
      const answered = await callDaemon("approve", request, await socket());
      if (options.json === true) return printJson(approvalJson(answered));
      process.stdout.write(
        `approved ${answered.id} (${describe(answered)}): ${options.for === undefined ? request.mode : `for ${options.for}`}\n`,
      );
    });

  program
    .command("deny")
    .description("Answer a pending request no (what that means per kind: forage-ctl approve --help)")
    .argument("<id>", "the request's id, as forage-ctl approvals shows it")
    .option("--json", "print the answered request as JSON")
    .addHelpText("after", "\nExample:\n  forage-ctl deny k7q2xm")
    .action(async (id: string, options: { json?: boolean }) => {
      const answered = await callDaemon("deny", { id }, await socket());
      if (options.json === true) return printJson(approvalJson(answered));
      process.stdout.write(`denied ${answered.id} (${describe(answered)})\n`);
    });
}

/** approvals show ID [--json]: one pending request with every field. */
function registerShow(approvals: Command, socket: () => Promise<string>): void {
  approvals
    .command("show")
    .description(
      "Show one pending request with every field: a push's commits and diffstat, a key's comment and destination, a host's name, port and addresses",
    )
    .argument("<id>", "the request's id, as forage-ctl approvals shows it")
    .option("--json", "print the request as JSON (as forage-ctl approvals --json lists it)")
    .addHelpText(
      "after",
      `
The sandbox's own text is shown quoted ("…") or under a label that says it is the sandbox's, with
every invisible or direction-changing character escaped, line by line (also with --json).
Answer with forage-ctl approve ID or forage-ctl deny ID.

Examples:
  forage-ctl approvals show k7q2xm
  forage-ctl approvals show k7q2xm --json`,
    )
    .action(async (id: string, _options: unknown, command: Command) => {
      // The parent's options are recognised after "show" too: --json is the same either way.
      const options = command.optsWithGlobals<{ json?: boolean; watch?: boolean }>();
      if (options.watch === true)
        throw new SandboxError("--watch goes with forage-ctl approvals (the list), not with show", "usage");
      if (!approvalIdPattern.test(id))
        throw new SandboxError(
          `"${escapeSandboxText(id)}" is not a request id: an id is 6 letters and digits, as forage-ctl approvals lists them`,
          "usage",
        );
      const request = (await callDaemon("approvals", {}, await socket())).find(
        (pending) => pending.id === id.toLowerCase(),
      );
      if (request === undefined)
        throw new SandboxError(
          `no pending approval "${id}" (answered, expired, or never asked): forage-ctl approvals lists the pending ones with their ids`,
          "general",
        );
      if (options.json === true) return printJson(approvalJson(request));
      process.stdout.write(approvalDetail(request, Date.now()));
    });
}

/** The table of approval-answers.ts as help text: per kind, each flag and what it does or why it is refused. */
function answersHelp(): string {
  return Object.entries(approvalAnswers)
    .map(([kind, answers]) => {
      const lines = [...approvalModes, "deny" as const].map((mode) => {
        const meaning = answers[mode];
        return wrap(
          `${mode === "deny" ? "deny" : `--${mode}`}: ${"does" in meaning ? meaning.does : `refused: ${meaning.refused}`}`,
          "    ",
          100,
        );
      });
      return `  ${kind}\n${lines.join("\n")}`;
    })
    .join("\n");
}

/** `host pypi.example:443 for fix-42`, escaped. */
function describe(request: ApprovalView): string {
  return `${request.kind} ${subjectSummary(request)} for ${escapeSandboxText(request.sandbox)}`;
}

function printPending(pending: readonly ApprovalView[], now: number): void {
  if (pending.length === 0) return void process.stdout.write("no pending requests\n");
  printTable(
    ["ID", "SANDBOX", "KIND", "WHAT", "AGE", "DEADLINE"],
    pending.map((request) => [
      request.id,
      escapeSandboxText(request.sandbox),
      request.kind,
      subjectSummary(request, whatWidth),
      shortDuration(now - Date.parse(request.createdAt)),
      `in ${shortDuration(Date.parse(request.deadlineAt) - now)}`,
    ]),
  );
}

/** Polls the daemon; redraws (a terminal) or prints on change, with a bell on a new request. */
async function watch(path: string, json: boolean): Promise<never> {
  const seen = new Set<string>();
  let last = "";
  const terminal = process.stdout.isTTY === true && !json;
  for (;;) {
    const pending = await callDaemon("approvals", {}, path);
    const fresh = pending.some((request) => !seen.has(request.id));
    for (const request of pending) seen.add(request.id);
    const listed = JSON.stringify(pending.map(approvalJson));
    if (json) {
      if (listed !== last) process.stdout.write(`${listed}\n`);
    } else if (terminal) {
      // Home, clear: the list as it is now (ages and deadlines count on).
      process.stdout.write(
        `\x1b[H\x1b[2J${fresh ? "\x07" : ""}forage-ctl approvals: every ${watchIntervalMs / 1000} s (Ctrl-C stops)\n\n`,
      );
      printPending(pending, Date.now());
    } else if (listed !== last) {
      if (fresh) process.stdout.write("\x07");
      printPending(pending, Date.now());
    }
    last = listed;
    await sleep(watchIntervalMs);
  }
}

/** Words filled into lines of at most `width` columns, each starting with `indent` (the next ones two more). */
function wrap(text: string, indent: string, width: number): string {
  const lines: string[] = [];
  let line = indent;
  for (const word of text.split(" ")) {
    if (line.trim() !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = `${indent}  `;
    }
    line += line.trim() === "" ? word : ` ${word}`;
  }
  return [...lines, line].join("\n");
}
