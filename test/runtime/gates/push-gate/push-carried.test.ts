import { describe, expect, it } from "vitest";
import type { PushSubject } from "../../../../runtime/gates/approvals/approval.js";
import { subjectSummary, type ApprovalView } from "../../../../runtime/gates/approvals/approval-view.js";
import { runCommand } from "../../../../runtime/core/run-command.js";
import { approvalDetail } from "../../../../cli/approval-detail.js";
import { isRoot, toolsAvailable } from "../../../support/tools.js";
import { GateFixture } from "./gate-fixture.js";

const tools = toolsAvailable("git", "setpriv", "useradd", "userdel");

/*
 * GIVEN the gate (gate-fixture.ts); WHEN the agent pushes a long branch (301 commits) or a wide
 * one (150 files), THEN the push's request counts every commit and file, lists the oldest and the
 * newest commits with how many are left out between, and keeps git's "N files changed" line with
 * how many files it leaves out; `approvals show` prints just that.
 */
describe.skipIf(!tools.run || !isRoot())("what the push gate shows of a long push, with real git", () => {
  const f = new GateFixture("c", 5);

  /** Runs a shell script as the agent in its clone (one process for many commits). */
  const asAgentShell = async (script: string): Promise<void> => {
    const result = await runCommand(
      "setpriv",
      [`--reuid=${f.agentUid}`, `--regid=${f.agentUid}`, "--clear-groups", "--", "sh", "-ec", script],
      {
        cwd: f.work,
        env: { HOME: f.agentHome, PATH: "/usr/bin:/bin" },
        reject: false,
        timeoutMs: 120_000,
      },
    );
    expect([result.exitCode, result.stderr]).toEqual([0, ""]);
  };
  /** The push's subject, asked once, as the desk saw it (and denied). */
  const askedFor = async (ref: string): Promise<PushSubject> => {
    f.desk.policy = () => ({ decision: "deny" });
    expect((await f.asAgent(["push", "origin", `HEAD:${ref}`])).output).toContain("denied by the user");
    const [ask] = f.desk.asks;
    if (ask?.kind !== "push") throw new Error("no push was asked about");
    return ask.subject;
  };
  const view = (subject: PushSubject): ApprovalView => {
    const asked = { sandbox: "pushy", kind: "push" as const, subject };
    return {
      id: "k7q2xm",
      ...asked,
      summary: subjectSummary(asked),
      createdAt: new Date().toISOString(),
      deadlineAt: new Date().toISOString(),
    };
  };

  it("counts 301 commits exactly and lists the oldest 50 and the newest 50, saying 201 are left out between", async () => {
    await asAgentShell('i=1; while [ $i -le 301 ]; do git commit -q --allow-empty -m "commit $i"; i=$((i+1)); done');
    const subject = await askedFor("refs/heads/long");
    const numbers = subject.commits.map((line) => Number(/ commit (\d+)$/.exec(line)?.[1]));
    expect([subject.commitCount, subject.commits.length, subject.omitted]).toEqual([
      301,
      100,
      { after: 50, count: 201 },
    ]);
    expect(numbers).toEqual([
      ...Array.from({ length: 50 }, (_, i) => i + 1),
      ...Array.from({ length: 50 }, (_, i) => i + 252),
    ]);
    expect(subjectSummary({ sandbox: "pushy", kind: "push", subject })).toMatch(/ \(301 commits\)$/);
    const shown = approvalDetail(view(subject), Date.now()).split("\n");
    const at = shown.findIndex((line) => line.startsWith("COMMITS "));
    expect(shown[at]).toBe("COMMITS      301, oldest first; the oldest 50 and the newest 50 shown");
    expect(shown[at + 50]).toMatch(/^ {13}[0-9a-f]{7,} "commit 50"$/);
    expect(shown[at + 51]).toBe(`${" ".repeat(13)}… 201 commits not shown here …`);
    expect(shown[at + 52]).toMatch(/^ {13}[0-9a-f]{7,} "commit 252"$/);
    expect(shown[at + 101]).toMatch(/^ {13}[0-9a-f]{7,} "commit 301"$/);
  });

  it("lists 100 files of a 400-file diffstat (some 20 kB), says 300 more are left out, and keeps git's count of all 400", async () => {
    await asAgentShell(
      'mkdir wide; i=1; while [ $i -le 400 ]; do echo $i > wide/a-rather-long-file-name-number-$i.txt; i=$((i+1)); done; git add wide; git commit -q -m "Wide change"',
    );
    const lines = (await askedFor("refs/heads/wide")).diffstat.split("\n");
    expect(lines).toHaveLength(102);
    expect(
      lines.slice(0, 100).every((line) => /^ wide\/a-rather-long-file-name-number-\d+\.txt +\| 1 \+$/.test(line)),
    ).toBe(true);
    expect(lines.slice(100)).toEqual([
      " ... 300 more files not shown (counted in the last line)",
      " 400 files changed, 400 insertions(+)",
    ]);
  });
});
