import { describe, expect, it } from "vitest";
import type { ApprovalAsk, PushSubject } from "../../runtime/gates/approvals/approval.js";
import type { ApprovalView } from "../../runtime/gates/approvals/approval-view.js";
import { isRoot } from "../support/tools.js";
import { ApprovalsDaemon } from "./approvals-daemon.js";

/** Every invisible or direction-changing character the issue saw print raw, and a few more. */
const invisible = "\u200b\u200c\u200d\u2060\u2063\ufeff\u00a0\u202f\u0301\u061c\u202e\u2066";
const shownInvisible = "\\u200b\\u200c\\u200d\\u2060\\u2063\\ufeff\\xa0\\u202f\\u0301\\u061c\\u202e\\u2066";
/** Any character that must never reach a terminal raw from a listing (the escaper's rule, agent-text.ts). */
const rawHidden = /(?! )[\p{C}\p{Z}\p{M}\p{Default_Ignorable_Code_Point}\u2800]/u;
const withoutNewlines = (text: string): string => text.replaceAll("\n", "");

const push: ApprovalAsk = {
  sandbox: "fix-42",
  kind: "push",
  subject: {
    remote: "origin",
    url: "git@forge.example:me/repo.git",
    ref: `refs/heads/fix${invisible}`,
    from: "1a2b3c4d5e6f7a8b9c0d",
    to: "9f8e7d6c5b4a39281706",
    commitCount: 2,
    commits: [`4d5e6f7 Parse the header${invisible}`, "8a9b0c1 Test\u00a0the header"],
    diffstat: ` src/pars${invisible}er.ts | 14 +++++++++-----\n 1 file changed, 9 insertions(+), 5 deletions(-)\n`,
  } satisfies PushSubject,
  deadlineMs: 60_000,
};

/*
 * What every listing shows of the sandbox's text (ARCHITECTURE.md rule 18), against a real daemon
 * (approvals-daemon.ts): the table, approvals show, --json and the answers' lines escape every
 * invisible or direction-changing character; a login's user name is quoted data; a long host
 * name keeps its end. The desktop notification and the hook: test/runtime/gates/approvals/approval-notify.test.ts.
 */
describe.skipIf(!isRoot())("the sandbox's text in forage-ctl approvals, against a real daemon", () => {
  const daemon = new ApprovalsDaemon();

  it("escapes every invisible or direction-changing character in a host name: table, show and --json", async () => {
    await daemon.whilePending(
      {
        sandbox: "fix-42",
        kind: "host",
        subject: { name: `pay${invisible}pal.example`, port: 443 },
        deadlineMs: 60_000,
      },
      async (id) => {
        const table = await daemon.run("approvals");
        expect(table.stdout).toMatch(
          new RegExp(
            `^${id} +fix-42 +host +pay${shownInvisible.replaceAll("\\", "\\\\")}pal\\.example:443 +\\d+s +in \\d+s$`,
            "m",
          ),
        );
        const shown = await daemon.run("approvals", "show", id);
        expect(shown.stdout).toContain(
          `\nWHAT         pay${shownInvisible}pal.example:443\nNAME         "pay${shownInvisible}pal.example"\n`,
        );
        const json = await daemon.run("approvals", "--json");
        expect((JSON.parse(json.stdout) as ApprovalView[])[0]).toMatchObject({
          subject: { name: `pay${shownInvisible}pal.example` },
          summary: `pay${shownInvisible}pal.example:443`,
        });
        for (const output of [table.stdout, shown.stdout, json.stdout])
          expect(withoutNewlines(output)).not.toMatch(rawHidden);
      },
    );
  });

  it("escapes every invisible or direction-changing character in a push's ref, commit subjects and diffstat: table, show and --json", async () => {
    await daemon.whilePending(push, async (id) => {
      const table = await daemon.run("approvals");
      expect(table.exitCode, table.stderr).toBe(0);
      // The WHAT column's 100 characters: the ref gives way in its middle, never inside an escape.
      expect(table.stdout).toMatch(
        / push +origin refs\/heads\/fix(?:\\u[0-9a-f]{4}|\\x[0-9a-f]{2})+…(?:\\u[0-9a-f]{4}|\\x[0-9a-f]{2})+ 1a2b3c4d5e6f\.\.9f8e7d6c5b4a \(2 commits\) /,
      );
      const shown = await daemon.run("approvals", "show", id);
      expect(shown.stdout).toContain(`\nREF          "refs/heads/fix${shownInvisible}"\n`);
      expect(shown.stdout).toContain(
        `\n             4d5e6f7 "Parse the header${shownInvisible}"\n             8a9b0c1 "Test\\xa0the header"\n`,
      );
      expect(shown.stdout).toContain(`\n              src/pars${shownInvisible}er.ts | 14 +++++++++-----\n`);
      const json = await daemon.run("approvals", "--json");
      const [listed] = JSON.parse(json.stdout) as ApprovalView[];
      expect(listed?.kind === "push" && listed.subject).toMatchObject({
        ref: `refs/heads/fix${shownInvisible}`,
        commits: [`4d5e6f7 Parse the header${shownInvisible}`, "8a9b0c1 Test\\xa0the header"],
      });
      for (const output of [
        table.stdout,
        shown.stdout,
        json.stdout,
        (await daemon.run("approvals", "show", id, "--json")).stdout,
      ]) {
        expect(withoutNewlines(output)).not.toMatch(rawHidden);
      }
    });
  });

  it("shows an SSH login's user name as quoted data, never in the shape of forage's words", async () => {
    const hostKey = `SHA256:${"Q".repeat(43)}`;
    const user = `git${invisible}" to a server with host key SHA256:${"R".repeat(43)}\nhost: github.com (`;
    const sign: ApprovalAsk = {
      sandbox: "fix-42",
      kind: "ssh-sign",
      subject: { fingerprint: "SHA256:key", comment: "me@laptop", destination: { kind: "ssh-login", user, hostKey } },
      deadlineMs: 60_000,
    };
    await daemon.whilePending(sign, async (id) => {
      const quoted = `"git${shownInvisible}\\" to a server with host key SHA256:${"R".repeat(43)}\\x0ahost: github.com ("`;
      const shown = (await daemon.run("approvals", "show", id)).stdout.split("\n");
      expect(shown.filter((line) => /^(KEY|COMMENT|DESTINATION) /.test(line))).toEqual([
        "KEY          SHA256:key",
        "COMMENT      me@laptop",
        `DESTINATION  ssh login as ${quoted} to a server with host key ${hostKey}`,
      ]);
      const table = await daemon.run("approvals");
      expect(table.stdout).toMatch(
        / ssh-sign +SHA256:key \(me@laptop\) → ssh login as "git(?:\\u[0-9a-f]{4}|\\x[0-9a-f]{2})+… /,
      );
      expect(withoutNewlines(table.stdout)).not.toMatch(rawHidden);
      const [listed] = JSON.parse((await daemon.run("approvals", "--json")).stdout) as ApprovalView[];
      expect(listed?.kind === "ssh-sign" && listed.subject.destination).toEqual({
        kind: "ssh-login",
        user: quoted.slice(1, -1).replaceAll('\\"', '"'),
        hostKey,
      });
    });
  });

  it("cuts a long host name at its start in the table, keeping its domain, and shows it whole in show", async () => {
    const name = `${"login.bank.example.".repeat(12)}evil.example`;
    await daemon.whilePending(
      { sandbox: "fix-42", kind: "host", subject: { name, port: 443 }, deadlineMs: 60_000 },
      async (id) => {
        const row = (await daemon.run("approvals")).stdout.split("\n").find((line) => line.startsWith(id)) ?? "";
        const what = /^\S+ +fix-42 +host +(\S+) +\d+s +in \d+s$/.exec(row)?.[1] ?? "";
        expect(what).toHaveLength(100);
        expect(what).toMatch(/^…[a-z.]+\.bank\.example\.evil\.example:443$/);
        expect((await daemon.run("approvals", "show", id)).stdout).toContain(`\nNAME         "${name}"\n`);
      },
    );
  });

  it("escapes the answers' lines too: deny and approve name what they answered", async () => {
    const answer = daemon.ask({ ...push, deadlineMs: 60_000 });
    let id = "";
    for (let i = 0; i < 100 && id === ""; i++) {
      id = (JSON.parse((await daemon.run("approvals", "--json")).stdout) as ApprovalView[])[0]?.id ?? "";
      if (id === "") await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const denied = await daemon.run("deny", id);
    expect(denied.stdout).toBe(
      `denied ${id} (push origin refs/heads/fix${shownInvisible} 1a2b3c4d5e6f..9f8e7d6c5b4a (2 commits) for fix-42)\n`,
    );
    await expect(answer).resolves.toEqual({ decision: "deny" });
  });
});
