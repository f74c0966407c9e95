import { escapeControl, type ApprovalView } from "../runtime/approvals/approval-view.js";
import { shortDuration } from "./short-duration.js";

/** The values' column: the longest label (DESTINATION) and two spaces, the same for every kind. */
const labelWidth = 13;

/** A label and its value: one line, or several (continuation lines are indented under the first). */
type Field = [label: string, value: string | readonly string[]];

/**
 * One pending request with every field, as `forage-ctl approvals show ID` prints it: what the
 * table's WHAT column sums up in a line (a push's commits and diffstat, a key's comment and
 * destination), then how to answer. Every field from the sandbox is escaped (escapeControl) line
 * by line, so a commit subject or diffstat cannot move the cursor or fake a line of its own.
 *
 * @example
 * ID           k7q2xm
 * SANDBOX      fix-42
 * KIND         host
 * WHAT         pypi.example:443
 * NAME         pypi.example
 * PORT         443
 * ASKED        2026-11-21T10:00:00.000Z (12s ago)
 * DEADLINE     2026-11-21T10:00:30.000Z (in 18s; denied if nobody answers by then)
 *
 * Answer with one of:
 *   forage-ctl approve k7q2xm              # once: for this sandbox's life
 *   forage-ctl approve k7q2xm --always     # kept in this sandbox's policy
 *   forage-ctl deny k7q2xm
 */
export function approvalDetail(request: ApprovalView, now: number): string {
  const fields: Field[] = [
    ["ID", request.id],
    ["SANDBOX", escapeControl(request.sandbox)],
    ["KIND", request.kind],
    ["WHAT", escapeControl(request.summary)],
    ...subjectFields(request),
    ["ASKED", `${request.createdAt} (${shortDuration(now - Date.parse(request.createdAt))} ago)`],
    ["DEADLINE", `${request.deadlineAt} (in ${shortDuration(Date.parse(request.deadlineAt) - now)}; denied if nobody answers by then)`],
  ];
  const lines = fields.flatMap(([label, value]) =>
    (typeof value === "string" ? [value] : value.length === 0 ? [""] : value).map((line, index) => `${index === 0 ? label.padEnd(labelWidth) : " ".repeat(labelWidth)}${line}`.trimEnd()),
  );
  return `${[...lines, "", "Answer with one of:", ...answers(request).map((line) => `  ${line}`)].join("\n")}\n`;
}

/** The subject's fields by kind, each escaped; what a field does not know says so. */
function subjectFields(request: ApprovalView): Field[] {
  switch (request.kind) {
    case "host": {
      const { name, port } = request.subject;
      return [
        ["NAME", escapeControl(name)],
        ["PORT", port === undefined ? "not known (the DNS filter sees a name, not the port it is for)" : String(port)],
      ];
    }
    case "push": {
      const { remote, url, ref, from, to, commits, diffstat } = request.subject;
      const diffLines = diffstat.split("\n").filter((line, index, all) => line !== "" || index < all.length - 1);
      return [
        ["REMOTE", escapeControl(remote)],
        ["URL", escapeControl(url)],
        ["REF", escapeControl(ref)],
        ["FROM", from === null ? "none: a new branch" : escapeControl(from)],
        ["TO", escapeControl(to)],
        ["COMMITS", [`${commits.length}, oldest first`, ...commits.map(escapeControl)]],
        ["DIFFSTAT", diffLines.length === 0 ? "none" : diffLines.map(escapeControl)],
      ];
    }
    case "ssh-sign": {
      const { fingerprint, comment, destination } = request.subject;
      return [
        ["KEY", escapeControl(fingerprint)],
        ["COMMENT", escapeControl(comment)],
        ["DESTINATION", destination === undefined ? "not known (the session data did not show it)" : escapeControl(destination)],
      ];
    }
  }
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
    push: [`${approve}              # this push`, `${approve} --for 10m    # and this ref at this URL, unasked for 10 minutes`, `${approve} --always     # and this ref at this URL, unasked for good`],
    "ssh-sign": [`${approve}              # this signature`, `${approve} --for 10m    # this key to this destination, without asking again for 10 minutes`],
  };
  return [...ways[request.kind], `forage-ctl deny ${request.id}`];
}
