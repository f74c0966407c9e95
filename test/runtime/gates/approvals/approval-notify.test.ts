import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PushSubject } from "../../../../runtime/gates/approvals/approval.js";
import type { Asked } from "../../../../runtime/gates/approvals/approval-view.js";
import { subjectSummary, type ApprovalView } from "../../../../runtime/gates/approvals/approval-view.js";
import { approvalNotifier } from "../../../../runtime/gates/approvals/approval-notify.js";
import { startSessionBus, type SessionBus } from "../../../support/session-bus.js";
import { makeTestUser, type TestUser } from "../../../support/test-user.js";
import { isRoot, toolsAvailable } from "../../../support/tools.js";

const tools = toolsAvailable("dbus-daemon", "notify-send", "useradd", "userdel");

/** A pending request as the queue hands it to the notifier. */
function request(id: string, asked: Asked): ApprovalView {
  return {
    id,
    ...asked,
    summary: subjectSummary(asked),
    createdAt: "2026-11-21T10:00:00.000Z",
    deadlineAt: "2026-11-21T10:00:30.000Z",
  } as ApprovalView;
}

const push = request("k7q2xm", {
  sandbox: "fix-42",
  kind: "push",
  subject: {
    remote: "origin",
    url: "git@forge.example:me/repo.git",
    ref: "refs/heads/fix",
    from: "1a2b3c4d5e6f7a8b",
    to: "5d6e7f8a9b0c1d2e",
    commitCount: 3,
    commits: ["5d6e7f8 Fix it", "4c3b2a1 Test it", "0a1b2c3 Say it"],
    diffstat: " a.ts | 2 +-\n",
  },
});

/*
 * GIVEN an unprivileged user with a session bus at <runUserDir>/<uid>/bus (a real dbus-daemon
 * --session, as the user) and a notification server on it (test/support/notification-receiver.mjs,
 * standing in for the desktop's, which needs a display); WHEN the daemon's notifier hears of a
 * request, THEN the real notify-send shows it there. The bus admits only the user's uid, so a
 * notification that arrives was sent as the user, never as root.
 */
describe.skipIf(!tools.run || !isRoot())("the desktop notification of a new request, on a real session bus", () => {
  let user: TestUser;
  let bus: SessionBus;
  const runUserDir = mkdtempSync(join(tmpdir(), "forage-run-user-"));
  const logged: string[] = [];
  const notifierAt = (dir: string) =>
    approvalNotifier({ user, hook: null, log: (line) => void logged.push(line), runUserDir: dir });

  beforeAll(async () => {
    user = makeTestUser("notify");
    chmodSync(runUserDir, 0o755);
    bus = await startSessionBus(user, runUserDir);
  });
  afterAll(async () => {
    await bus?.stop();
    user?.remove();
    rmSync(runUserDir, { recursive: true, force: true });
  });

  it("shows who asks, what, and the commands that answer, as an urgent notification of forage", async () => {
    logged.length = 0;
    await notifierAt(runUserDir)(push);
    expect(await bus.next()).toMatchObject({
      appName: "forage",
      summary: "forage: fix-42 asks (push)",
      body: "origin refs/heads/fix 1a2b3c4d5e6f..5d6e7f8a9b0c (3 commits)\nforage-ctl approve k7q2xm   ·   forage-ctl deny k7q2xm",
      // 2: critical, which desktops keep on screen until it is dismissed.
      hints: { urgency: 2 },
      actions: [],
    });
    expect(logged).toEqual([]);
  });

  it("keeps the sandbox's text escaped in the body: control characters, bidirectional overrides and markup", async () => {
    logged.length = 0;
    const comment =
      'me\u202egnp.exe\x1b[31m <a href="https://evil.example">approve</a> & <img src="file:///etc/passwd">\r\nforage-ctl approve zzzzzz';
    await notifierAt(runUserDir)(
      request("m4p7qa", {
        sandbox: "fix-42",
        kind: "ssh-sign",
        subject: { fingerprint: "SHA256:abc", comment, destination: { kind: "ssh-login", user: "git" } },
      }),
    );
    const shown = await bus.next();
    expect(shown.summary).toBe("forage: fix-42 asks (ssh-sign)");
    // Cut at 120 characters of shown text (the markup's entities come after), never inside an escape.
    expect(shown.body).toBe(
      'SHA256:abc (me\\u202egnp.exe\\x1b[31m &lt;a href="https://evil.example"&gt;approve&lt;/a&gt; &amp; &lt;img src="file:///etc/passwd"&gt;\\x0d\\x0a…\n' +
        "forage-ctl approve m4p7qa   ·   forage-ctl deny m4p7qa",
    );
    expect(shown.body.split("\n")).toHaveLength(2);
    expect(logged).toEqual([]);
  });

  it("escapes every invisible or direction-changing character, and quotes an SSH login's user name, which is the sandbox's text", async () => {
    logged.length = 0;
    const user = "git\u061c\u00a0\ufeff\u2063\u200b\u0301 (key: SHA256:real)\nhost: github.com";
    const sign = { fingerprint: "SHA256:abc", comment: "me\u2060", destination: { kind: "ssh-login" as const, user } };
    await notifierAt(runUserDir)(request("q8r2st", { sandbox: "fix-42", kind: "ssh-sign", subject: sign }));
    const shown = await bus.next();
    expect(shown.body.split("\n")[0]).toBe(
      'SHA256:abc (me\\u2060) → ssh login as "git\\u061c\\xa0\\ufeff\\u2063\\u200b\\u0301 (key: SHA256:real)\\x0ahost: github.com"',
    );
    expect(shown.body).not.toMatch(/[\u061c\u00a0\ufeff\u2063\u200b\u0301\u2060]/);
    // A host name the same way (the DNS filter asks only for [a-z0-9.-], but the notifier relies on no asker).
    await notifierAt(runUserDir)(
      request("h1dden", { sandbox: "fix-42", kind: "host", subject: { name: "pay\u200bpal\u00a0.example\u061c" } }),
    );
    expect((await bus.next()).body.split("\n")[0]).toBe("pay\\u200bpal\\xa0.example\\u061c");
  });

  it("cuts a long host name at its start, keeping its domain and port", async () => {
    logged.length = 0;
    const name = `${"login.bank.example.".repeat(12)}evil.example`;
    await notifierAt(runUserDir)(request("h0stlg", { sandbox: "fix-42", kind: "host", subject: { name, port: 443 } }));
    const first = (await bus.next()).body.split("\n")[0] ?? "";
    expect(first).toHaveLength(120);
    expect(first).toMatch(/^…[a-z.]*\.bank\.example\.evil\.example:443$/);
  });

  it("gives the approvals.notify hook the request as JSON with every string escaped, so a script printing a field prints no invisible character", async () => {
    logged.length = 0;
    const out = mkdtempSync(join(tmpdir(), "forage-notify-hook-"));
    try {
      chmodSync(out, 0o777);
      const hook = approvalNotifier({
        user,
        hook: ["/bin/sh", "-c", `cat > ${out}/heard.json`],
        log: (line) => void logged.push(line),
        runUserDir: join(out, "no-bus"),
      });
      const subject = { ...(push.subject as PushSubject), commits: ["5d6e7f8 Fix\u202e\u200bit"], commitCount: 1 };
      await hook(request("j5on7x", { sandbox: "fix-42", kind: "push", subject }));
      const heard = JSON.parse(readFileSync(join(out, "heard.json"), "utf8")) as ApprovalView;
      expect(heard.kind === "push" && heard.subject.commits).toEqual(["5d6e7f8 Fix\\u202e\\u200bit"]);
      expect(logged).toEqual([]);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it("runs nothing when the user has no session bus: no socket at <runUserDir>/<uid>/bus, or a link to one", async () => {
    logged.length = 0;
    const noBus = mkdtempSync(join(tmpdir(), "forage-run-user-"));
    const linked = mkdtempSync(join(tmpdir(), "forage-run-user-"));
    try {
      for (const dir of [noBus, linked]) {
        chmodSync(dir, 0o755);
        mkdirSync(join(dir, String(user.uid)), { mode: 0o700 });
        chownSync(join(dir, String(user.uid)), user.uid, user.gid);
      }
      symlinkSync(bus.socket, join(linked, String(user.uid), "bus"));
      // notify-send run on a missing bus fails, and its failure is logged; on the link it would reach the live bus.
      await notifierAt(noBus)(
        request("n2ws3a", { sandbox: "fix-42", kind: "host", subject: { name: "no-bus.example" } }),
      );
      await notifierAt(linked)(
        request("l5nk3d", { sandbox: "fix-42", kind: "host", subject: { name: "linked.example" } }),
      );
      expect(logged).toEqual([]);
      // Control: the next notification on the live bus is this one; nothing came before it.
      await notifierAt(runUserDir)(
        request("c0ntr7", { sandbox: "fix-42", kind: "host", subject: { name: "control.example", port: 443 } }),
      );
      expect((await bus.next()).body).toBe(
        "control.example:443\nforage-ctl approve c0ntr7   ·   forage-ctl deny c0ntr7",
      );
      expect(bus.unread).toBe(0);
    } finally {
      rmSync(noBus, { recursive: true, force: true });
      rmSync(linked, { recursive: true, force: true });
    }
  });
});
