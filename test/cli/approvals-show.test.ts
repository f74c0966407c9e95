import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ApprovalAsk, PushSubject } from "../../runtime/gates/approvals/approval.js";
import type { ApprovalView } from "../../runtime/gates/approvals/approval-view.js";
import { isRoot } from "../support/tools.js";
import { ApprovalsDaemon } from "./approvals-daemon.js";
import { runCli, stackFrame } from "./run-cli.js";

const pushSubject: PushSubject = {
  remote: "origin",
  url: "git@forge.example:me/repo.git",
  ref: "refs/heads/fix-parser",
  from: "1a2b3c4d5e6f7a8b9c0d",
  to: "9f8e7d6c5b4a39281706",
  commitCount: 3,
  commits: ["4d5e6f7 Parse the header", "8a9b0c1 Test the header", "9f8e7d6 Say so in the README"],
  diffstat:
    " README.md       |  2 ++\n src/parser.ts   | 14 +++++++++-----\n 2 files changed, 11 insertions(+), 5 deletions(-)\n",
};
const push: ApprovalAsk = { sandbox: "fix-42", kind: "push", subject: pushSubject, deadlineMs: 60_000 };

/** The detail with its two clock-dependent lines made stable. */
const stable = (text: string): string => text.replace(/^(ASKED|DEADLINE)( +)\S+ \([^)]*\)/gm, "$1$2<time>");

/*
 * forage-ctl approvals show ID, as root, against a real daemon (approvals-daemon.ts).
 * test/integration/approvals.test.ts drives the rest of the queue (the user's socket, answers,
 * the hook, deadlines); approvals-text.test.ts what every listing shows of hostile text.
 */
describe.skipIf(!isRoot())("forage-ctl approvals show, against a real daemon", () => {
  const daemon = new ApprovalsDaemon();
  const { config, dir, env } = daemon;
  const run = (...args: string[]) => daemon.run(...args);
  const whilePending = (what: ApprovalAsk, check: (id: string) => Promise<void>) => daemon.whilePending(what, check);

  it("shows a push with every field: remote, URL, ref, both commits in full, each commit, the diffstat, and how to answer", async () => {
    await whilePending(push, async (id) => {
      const shown = await run("approvals", "show", id);
      expect([shown.exitCode, shown.stderr]).toEqual([0, ""]);
      expect(stable(shown.stdout)).toBe(
        [
          `ID           ${id}`,
          "SANDBOX      fix-42",
          "KIND         push",
          "WHAT         origin refs/heads/fix-parser 1a2b3c4d5e6f..9f8e7d6c5b4a (3 commits)",
          "REMOTE       origin",
          "URL          git@forge.example:me/repo.git",
          // The sandbox's text quoted; forage's and the host's as they are.
          'REF          "refs/heads/fix-parser"',
          "FROM         1a2b3c4d5e6f7a8b9c0d",
          "TO           9f8e7d6c5b4a39281706",
          "COMMITS      3, oldest first",
          '             4d5e6f7 "Parse the header"',
          '             8a9b0c1 "Test the header"',
          '             9f8e7d6 "Say so in the README"',
          // git's own indentation kept: the diffstat as the push gate saw it, under a line saying whose names it holds.
          "DIFFSTAT     git's, of the sandbox's files (their names are the sandbox's):",
          "              README.md       |  2 ++",
          "              src/parser.ts   | 14 +++++++++-----",
          "              2 files changed, 11 insertions(+), 5 deletions(-)",
          "ASKED        <time>",
          "DEADLINE     <time>",
          "",
          'Quoted ("…"): the sandbox\'s own text, every invisible or direction-changing character escaped',
          '(\\u200b, \\x1b; \\\\ is a backslash, \\" a quote).',
          "",
          "Answer with one of:",
          `  forage-ctl approve ${id}              # this push`,
          `  forage-ctl approve ${id} --for 10m    # and this ref at this URL, unasked for 10 minutes`,
          `  forage-ctl approve ${id} --always     # and this ref at this URL, unasked for good`,
          `  forage-ctl deny ${id}`,
          "",
        ].join("\n"),
      );
      expect(shown.stdout).toMatch(/^ASKED {8}\d{4}-\d\d-\d\dT[\d:.]+Z \(\d+s ago\)$/m);
      // The 60 s deadline counts down from the ask: a loaded machine may take seconds to get here.
      const left = /^DEADLINE {5}\d{4}-\d\d-\d\dT[\d:.]+Z \(in (\d+)s; denied if nobody answers by then\)$/m.exec(
        shown.stdout,
      )?.[1];
      expect(Number(left)).toBeGreaterThanOrEqual(30);
      expect(Number(left)).toBeLessThanOrEqual(60);
    });
  });

  it("escapes the sandbox's text line by line: a commit subject or diffstat line cannot fake a line, move the cursor or reverse the text", async () => {
    const hostile: ApprovalAsk = {
      ...push,
      subject: {
        ...pushSubject,
        commitCount: 1,
        commits: ["4d5e6f7 ok\x1b[2J\nDEADLINE     never"],
        diffstat: " \u202eevil.ts | 1 +\x07\n",
      },
    };
    await whilePending(hostile, async (id) => {
      const shown = await run("approvals", "show", id.toUpperCase());
      expect(shown.exitCode, shown.stderr).toBe(0);
      expect(shown.stdout).toContain('\n             4d5e6f7 "ok\\x1b[2J\\x0aDEADLINE     never"\n');
      expect(shown.stdout).toContain("\n              \\u202eevil.ts | 1 +\\x07\n");
      expect(shown.stdout).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f\u202e]/);
      expect(shown.stdout.match(/^DEADLINE/gm)).toHaveLength(1);
    });
  });

  it("shows an SSH signature's key, comment and destination, and a host's name and port, with the answers that fit each", async () => {
    await whilePending(
      {
        sandbox: "fix-42",
        kind: "ssh-sign",
        subject: { fingerprint: "SHA256:q1w2e3", comment: "me@laptop" },
        deadlineMs: 60_000,
      },
      async (id) => {
        const lines = (await run("approvals", "show", id)).stdout.split("\n");
        expect(lines.filter((line) => /^(KEY|COMMENT|DESTINATION) /.test(line))).toEqual([
          "KEY          SHA256:q1w2e3",
          "COMMENT      me@laptop",
          "DESTINATION  not known (the session data did not show it)",
        ]);
        // Its destination not known, --for could not be held to one: not offered (the queue refuses it).
        expect(lines.filter((line) => line.includes("--for"))).toEqual([]);
      },
    );
    const destination = { kind: "ssh-login" as const, user: "git", hostKey: `SHA256:${"A".repeat(43)}` };
    await whilePending(
      {
        sandbox: "fix-42",
        kind: "ssh-sign",
        subject: { fingerprint: "SHA256:q1w2e3", comment: "me@laptop", destination },
        deadlineMs: 60_000,
      },
      async (id) => {
        const lines = (await run("approvals", "show", id)).stdout.split("\n");
        expect(lines).toContain(
          `  forage-ctl approve ${id} --for 10m    # this key to this destination, without asking again for 10 minutes`,
        );
      },
    );
    await whilePending(
      { sandbox: "fix-42", kind: "host", subject: { name: "pypi.example", port: 443 }, deadlineMs: 60_000 },
      async (id) => {
        const lines = (await run("approvals", "show", id)).stdout.split("\n");
        expect(lines.filter((line) => /^(NAME|PORT) /.test(line))).toEqual([
          'NAME         "pypi.example"',
          "PORT         443",
        ]);
        expect(lines).toContain("ADDRESSES    not looked up yet: nothing is sent upstream before you answer;");
        expect(lines).toContain(`  forage-ctl approve ${id} --always     # name:port kept in this sandbox's allowlist`);
      },
    );
  });

  it("shows an MCP tool call's server, tool and arguments whole, a field per line, the sandbox's text quoted and escaped", async () => {
    const args = JSON.stringify({ repo: "me/app", title: "fix\u202etxt.exe", labels: ["bug", "p1"] });
    await whilePending(
      { sandbox: "fix-42", kind: "mcp-call", subject: { server: "tracker", tool: "create_issue", arguments: args } },
      async (id) => {
        const lines = (await run("approvals", "show", id)).stdout.split("\n");
        const from = lines.findIndex((line) => line.startsWith("SERVER"));
        expect(
          lines.slice(
            from,
            lines.findIndex((line) => line.startsWith("ASKED")),
          ),
        ).toEqual([
          "SERVER       tracker",
          'TOOL         "create_issue"',
          "ARGUMENTS    the agent's JSON, whole, a line per field:",
          '             "{"',
          '             "  \\"repo\\": \\"me/app\\","',
          '             "  \\"title\\": \\"fix\\u202etxt.exe\\","',
          '             "  \\"labels\\": ["',
          '             "    \\"bug\\","',
          '             "    \\"p1\\""',
          '             "  ]"',
          '             "}"',
        ]);
        expect(lines).toContain(
          `  forage-ctl approve ${id} --always     # and this tool in the server's allow list for this sandbox`,
        );
      },
    );
  });

  it("shows the addresses a re-pointed host's answer has, those approved before and the new ones, which are what an approval admits", async () => {
    const subject = {
      name: "pypi.example",
      port: 443,
      addresses: ["203.0.113.9", "198.51.100.7"],
      approved: ["198.51.100.7"],
    };
    await whilePending({ sandbox: "fix-42", kind: "host", subject, deadlineMs: 60_000 }, async (id) => {
      const shown = (await run("approvals", "show", id)).stdout;
      expect(shown).toContain("WHAT         pypi.example:443 at 2 addresses, 1 new\n");
      expect(shown).toContain(
        [
          "ADDRESSES    the resolver's answer, 2:",
          "             203.0.113.9  (new)",
          "             198.51.100.7  (approved before)",
        ].join("\n"),
      );
      expect((await run("approvals")).stdout).toContain("pypi.example:443 at 2 addresses, 1 new");
    });
  });

  it("prints the request as JSON with --json, as forage-ctl approvals --json lists it (before or after the id)", async () => {
    await whilePending(push, async (id) => {
      const [listed] = JSON.parse((await run("approvals", "--json")).stdout) as ApprovalView[];
      for (const args of [
        ["approvals", "show", id, "--json"],
        ["approvals", "show", "--json", id],
      ]) {
        const shown = await run(...args);
        expect(shown.exitCode, shown.stderr).toBe(0);
        expect(JSON.parse(shown.stdout)).toEqual(listed);
      }
      expect(listed).toMatchObject({
        id,
        kind: "push",
        subject: { commits: pushSubject.commits, diffstat: pushSubject.diffstat },
      });
    });
  });

  it("refuses an id that is not pending: exit 1, what is wrong and where the ids are, no stack", async () => {
    const shown = await run("approvals", "show", "zzzzzz");
    expect(shown).toEqual({
      exitCode: 1,
      stdout: "",
      stderr:
        'forage-ctl: no pending approval "zzzzzz" (answered, expired, or never asked): forage-ctl approvals lists the pending ones with their ids\n',
    });
  });

  it("refuses what is not an id as a usage error (exit 64), before asking the daemon", async () => {
    const shown = await run("approvals", "show", "k7q2x\x1b");
    expect([shown.exitCode, shown.stdout]).toEqual([64, ""]);
    expect(shown.stderr).toBe(
      'forage-ctl: "k7q2x\\x1b" is not a request id: an id is 6 letters and digits, as forage-ctl approvals lists them\n',
    );
    expect(shown.stderr).not.toMatch(stackFrame);
    // Where no daemon answers, the same refusal: the id is checked before any daemon is asked.
    const alone = await runCli(["--config", config, "approvals", "show", "k7q2x\x1b"], {
      env: { ...env, FORAGE_RUN_DIR: join(dir, "no-daemon") },
    });
    expect([alone.exitCode, alone.stderr]).toEqual([64, shown.stderr]);
  });
});

describe("forage-ctl approvals show --help", () => {
  it("says what it shows and gives an example, without a daemon", async () => {
    const help = await runCli(["approvals", "show", "--help"]);
    expect([help.exitCode, help.stderr]).toEqual([0, ""]);
    expect(help.stdout).toMatch(/^Usage: forage-ctl approvals show \[options\] <id>\n/);
    expect(help.stdout).toContain("a push's commits and diffstat");
    expect(help.stdout).toContain("\nExamples:\n  forage-ctl approvals show k7q2xm\n");
    expect((await runCli(["approvals", "--help"])).stdout).toMatch(
      /^ {2}show \[options\] <id> +Show one pending request/m,
    );
  });
});
