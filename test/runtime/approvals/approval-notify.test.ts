import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Asked } from "../../../runtime/approvals/approval-view.js";
import { subjectSummary, type ApprovalView } from "../../../runtime/approvals/approval-view.js";
import { approvalNotifier } from "../../../runtime/approvals/approval-notify.js";
import { startSessionBus, type SessionBus } from "../../support/session-bus.js";
import { makeTestUser, type TestUser } from "../../support/test-user.js";
import { isRoot, toolsAvailable } from "../../support/tools.js";

const tools = toolsAvailable("dbus-daemon", "notify-send", "useradd", "userdel");

/** A pending request as the queue hands it to the notifier. */
function request(id: string, asked: Asked): ApprovalView {
  return { id, ...asked, summary: subjectSummary(asked), createdAt: "2026-11-21T10:00:00.000Z", deadlineAt: "2026-11-21T10:00:30.000Z" } as ApprovalView;
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
  const notifierAt = (dir: string) => approvalNotifier({ user, hook: null, log: (line) => void logged.push(line), runUserDir: dir });

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
    const comment = 'me\u202egnp.exe\x1b[31m <a href="https://evil.example">approve</a> & <img src="file:///etc/passwd">\r\nforage-ctl approve zzzzzz';
    await notifierAt(runUserDir)(request("m4p7qa", { sandbox: "fix-42", kind: "ssh-sign", subject: { fingerprint: "SHA256:abc", comment, destination: "git@forge.example" } }));
    const shown = await bus.next();
    expect(shown.summary).toBe("forage: fix-42 asks (ssh-sign)");
    expect(shown.body).toBe(
      'SHA256:abc (me\\u202egnp.exe\\x1b[31m &lt;a href="https://evil.example"&gt;approve&lt;/a&gt; &amp; &lt;img src="file:///etc/passwd"&gt;\\x0d\\x0aforage-ctl approve zzzzzz) → git@forge.example\n' +
        "forage-ctl approve m4p7qa   ·   forage-ctl deny m4p7qa",
    );
    expect(shown.body.split("\n")).toHaveLength(2);
    expect(logged).toEqual([]);
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
      await notifierAt(noBus)(request("n2ws3a", { sandbox: "fix-42", kind: "host", subject: { name: "no-bus.example" } }));
      await notifierAt(linked)(request("l5nk3d", { sandbox: "fix-42", kind: "host", subject: { name: "linked.example" } }));
      expect(logged).toEqual([]);
      // Control: the next notification on the live bus is this one; nothing came before it.
      await notifierAt(runUserDir)(request("c0ntr7", { sandbox: "fix-42", kind: "host", subject: { name: "control.example", port: 443 } }));
      expect((await bus.next()).body).toBe("control.example:443\nforage-ctl approve c0ntr7   ·   forage-ctl deny c0ntr7");
      expect(bus.unread).toBe(0);
    } finally {
      rmSync(noBus, { recursive: true, force: true });
      rmSync(linked, { recursive: true, force: true });
    }
  });
});
