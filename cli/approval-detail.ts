import type { HostSubject, PushSubject } from "../runtime/gates/approvals/approval.js";
import { heldDestination } from "../runtime/gates/approvals/approval-answers.js";
import { subjectSummary, type ApprovalView } from "../runtime/gates/approvals/approval-view.js";
import { escapeSandboxText, quoteSandboxText } from "../runtime/gates/shared/agent-text.js";
import { signDestinationText } from "../runtime/gates/approvals/sign-destination-text.js";
import { shortDuration } from "./short-duration.js";

/** The values' column: the longest label (DESTINATION) and two spaces, the same for every kind. */
const labelWidth = 13;

/** A label and its value: one line, or several (continuation lines are indented under the first). */
type Field = [label: string, value: string | readonly string[]];

/**
 * One pending request with every field, as `forage-ctl approvals show ID` prints it: what the
 * table's WHAT column sums up in a line (a push's commits and diffstat, a key's comment and
 * destination), then how to answer. Every field is escaped line by line (agent-text.ts), so a
 * commit subject or diffstat cannot move the cursor, turn text around or fake a line of its own;
 * the sandbox's own text is quoted, or under a label that says so, so it never takes the shape of
 * what forage says (ARCHITECTURE.md rule 18).
 *
 * @example
 * ID           k7q2xm
 * SANDBOX      fix-42
 * KIND         host
 * WHAT         pypi.example:443 at 2 addresses, 1 new
 * NAME         "pypi.example"
 * PORT         443
 * ADDRESSES    the resolver's answer, 2:
 *              151.101.0.223  (approved before)
 *              151.101.64.223  (new)
 * ASKED        2026-11-21T10:00:00.000Z (12s ago)
 * DEADLINE     2026-11-21T10:00:30.000Z (in 18s; denied if nobody answers by then)
 *
 * Quoted ("…"): the sandbox's own text, every invisible or direction-changing character escaped
 * (\u200b, \x1b; \\ is a backslash, \" a quote).
 *
 * Answer with one of:
 *   forage-ctl approve k7q2xm              # once: this name, port and addresses while the sandbox runs
 *   forage-ctl approve k7q2xm --for 10m    # the same, for 10 minutes
 *   forage-ctl approve k7q2xm --always     # name:port kept in this sandbox's allowlist
 *   forage-ctl deny k7q2xm
 */
export function approvalDetail(request: ApprovalView, now: number): string {
  const fields: Field[] = [
    ["ID", request.id],
    ["SANDBOX", escapeSandboxText(request.sandbox)],
    ["KIND", request.kind],
    ["WHAT", subjectSummary(request)],
    ...subjectFields(request),
    ["ASKED", `${request.createdAt} (${shortDuration(now - Date.parse(request.createdAt))} ago)`],
    [
      "DEADLINE",
      `${request.deadlineAt} (in ${shortDuration(Date.parse(request.deadlineAt) - now)}; denied if nobody answers by then)`,
    ],
  ];
  const lines = fields.flatMap(([label, value]) =>
    (typeof value === "string" ? [value] : value.length === 0 ? [""] : value).map((line, index) =>
      `${index === 0 ? label.padEnd(labelWidth) : " ".repeat(labelWidth)}${line}`.trimEnd(),
    ),
  );
  return `${[...lines, "", ...legend, "", "Answer with one of:", ...answers(request).map((line) => `  ${line}`)].join("\n")}\n`;
}

/** Says which text is the sandbox's, and how its escapes read. */
const legend = [
  'Quoted ("…"): the sandbox\'s own text, every invisible or direction-changing character escaped',
  '(\\u200b, \\x1b; \\\\ is a backslash, \\" a quote).',
];

/** The subject's fields by kind, each escaped, the sandbox's quoted; what a field does not know says so. */
function subjectFields(request: ApprovalView): Field[] {
  switch (request.kind) {
    case "host": {
      const { name, port } = request.subject;
      return [
        ["NAME", quoteSandboxText(name)],
        ["PORT", port === undefined ? "not known (the DNS filter sees a name, not the port it is for)" : String(port)],
        ["ADDRESSES", hostAddresses(request.subject)],
      ];
    }
    case "push":
      return pushFields(request.subject);
    case "mcp-call": {
      const { server, tool, arguments: args } = request.subject;
      return [
        ["SERVER", escapeSandboxText(server)],
        ["TOOL", quoteSandboxText(tool)],
        ["ARGUMENTS", ["the agent's JSON, whole, a line per field:", ...readableJson(args).map(quoteSandboxText)]],
      ];
    }
    case "ssh-sign": {
      const { fingerprint, comment, destination } = request.subject;
      return [
        ["KEY", escapeSandboxText(fingerprint)],
        ["COMMENT", escapeSandboxText(comment)],
        [
          "DESTINATION",
          destination === undefined
            ? "not known (the session data did not show it)"
            : destination.kind === "sshsig"
              ? signDestinationText(destination)
              : [
                  signDestinationText(destination),
                  "(the server's host name is not in the request, so it cannot be shown)",
                ],
        ],
      ];
    }
  }
}

/**
 * What a host approval admits the name at: the answer's addresses, those approved before marked;
 * before the first answer, why there are none to show yet (looking the name up would send its
 * labels upstream before the human said yes) and which it will admit.
 */
function hostAddresses({ addresses, approved = [] }: HostSubject): string[] {
  if (addresses === undefined)
    return [
      "not looked up yet: nothing is sent upstream before you answer;",
      "approving admits the addresses of the answer to the lookup it releases, and only those",
      "(another answer later asks again, showing its addresses)",
    ];
  const before = new Set(approved);
  return [
    `the resolver's answer, ${addresses.length}:`,
    ...addresses.map(
      (address) => `${escapeSandboxText(address)}${before.has(address) ? "  (approved before)" : "  (new)"}`,
    ),
  ];
}

/** A push's fields: the commits with their subjects quoted and what a long list leaves out, the diffstat under its label. */
function pushFields(subject: PushSubject): Field[] {
  const { remote, url, ref, from, to, commitCount, commits, omitted, diffstat } = subject;
  const listed = commits.map(commitLine);
  if (omitted !== undefined)
    listed.splice(omitted.after, 0, `… ${omitted.count} commit${omitted.count === 1 ? "" : "s"} not shown here …`);
  const shownCount =
    omitted === undefined ? "" : `; the oldest ${omitted.after} and the newest ${commits.length - omitted.after} shown`;
  const diffLines = diffstat.split("\n").filter((line, index, all) => line !== "" || index < all.length - 1);
  return [
    ["REMOTE", escapeSandboxText(remote)],
    ["URL", escapeSandboxText(url)],
    ["REF", quoteSandboxText(ref)],
    ["FROM", from === null ? "none: a new branch" : escapeSandboxText(from)],
    ["TO", escapeSandboxText(to)],
    ["COMMITS", [`${commitCount}, oldest first${shownCount}`, ...listed]],
    [
      "DIFFSTAT",
      diffLines.length === 0
        ? "none"
        : ["git's, of the sandbox's files (their names are the sandbox's):", ...diffLines.map(escapeSandboxText)],
    ],
  ];
}

/** "<short hash> <subject>": git's hash as it is, the sandbox's subject quoted. */
function commitLine(line: string): string {
  const space = line.indexOf(" ");
  return space < 0
    ? quoteSandboxText(line)
    : `${escapeSandboxText(line.slice(0, space))} ${quoteSandboxText(line.slice(space + 1))}`;
}

/** The commands that answer it: the approvals that fit its kind, then deny. */
function answers(request: ApprovalView): string[] {
  const approve = `forage-ctl approve ${request.id}`;
  const ways: Record<ApprovalView["kind"], string[]> = {
    host: [
      `${approve}              # once: this name, port and addresses while the sandbox runs`,
      `${approve} --for 10m    # the same, for 10 minutes`,
      `${approve} --always     # name:port kept in this sandbox's allowlist`,
    ],
    push: [
      `${approve}              # this push`,
      `${approve} --for 10m    # and this ref at this URL, unasked for 10 minutes`,
      `${approve} --always     # and this ref at this URL, unasked for good`,
    ],
    "ssh-sign": [
      `${approve}              # this signature`,
      // --for only where it can be held to the destination shown (approval-answers.ts).
      ...(request.kind === "ssh-sign" && !heldDestination(request.subject.destination)
        ? []
        : [`${approve} --for 10m    # this key to this destination, without asking again for 10 minutes`]),
    ],
    "mcp-call": [
      `${approve}              # this call, with these arguments`,
      `${approve} --for 10m    # and this tool of this server, any arguments, unasked for 10 minutes`,
      `${approve} --always     # and this tool in the server's allow list for this sandbox`,
    ],
  };
  return [...ways[request.kind], `forage-ctl deny ${request.id}`];
}

/** JSON text laid out a field per line (the same value: only spaces and line feeds between tokens); as it is when it does not parse. */
function readableJson(text: string): string[] {
  try {
    return JSON.stringify(JSON.parse(text), null, 2).split("\n");
  } catch {
    return [text];
  }
}
