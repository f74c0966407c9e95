import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { modeRefusal } from "../../../../runtime/gates/approvals/approval-answers.js";
import { ApprovalQueue, type ApprovalAuditKind } from "../../../../runtime/gates/approvals/approval-queue.js";
import type { ApprovalAsk, SshSignSubject } from "../../../../runtime/gates/approvals/approval.js";
import type { ApprovalView } from "../../../../runtime/gates/approvals/approval-view.js";
import { readEvents, recordEvent } from "../../../../runtime/core/audit-log.js";
import { runtimePaths } from "../../../../runtime/core/paths.js";

const host = (name: string, sandbox = "demo"): ApprovalAsk => ({ sandbox, kind: "host", subject: { name } });

interface Recorded {
  sandbox: string;
  event: ApprovalAuditKind;
  detail: string;
}

function queueWithLog(options: { deadlineMs?: number; maxPending?: number } = {}): {
  queue: ApprovalQueue;
  events: Recorded[];
  queued: ApprovalView[];
} {
  const events: Recorded[] = [];
  const queued: ApprovalView[] = [];
  const queue = new ApprovalQueue({
    audit: async (sandbox, event, detail) => void events.push({ sandbox, event, detail }),
    onQueued: (request) => void queued.push(request),
    ...(options.deadlineMs === undefined ? {} : { defaultDeadlineMs: options.deadlineMs }),
    ...(options.maxPending === undefined ? {} : { maxPendingPerSandbox: options.maxPending }),
  });
  return { queue, events, queued };
}

describe("the approvals queue", () => {
  beforeEach(() => void vi.useFakeTimers({ now: new Date("2026-11-21T10:00:00Z") }));
  afterEach(() => void vi.useRealTimers());

  it("lists a request with a six-character id, its sandbox, kind, subject, creation time and deadline", () => {
    const { queue } = queueWithLog();
    void queue.ask({ ...host("pypi.example"), deadlineMs: 10_000 });
    const [request] = queue.pending();
    expect(request?.id).toMatch(/^[a-z2-7]{6}$/);
    expect(request).toMatchObject({
      sandbox: "demo",
      kind: "host",
      subject: { name: "pypi.example" },
      summary: "pypi.example",
      createdAt: "2026-11-21T10:00:00.000Z",
      deadlineAt: "2026-11-21T10:00:10.000Z",
    });
  });

  it("resolves every asker of a request with the human's answer, and drops it from the list", async () => {
    const { queue } = queueWithLog();
    const answer = queue.ask(host("pypi.example"));
    const id = queue.pending()[0]?.id ?? "";
    queue.answer(id.toUpperCase(), { decision: "always" }, "root");
    await expect(answer).resolves.toEqual({ decision: "always" });
    expect(queue.pending()).toEqual([]);
  });

  it("coalesces a repeated ask for the same sandbox, kind and subject onto the pending request", async () => {
    const { queue, queued } = queueWithLog();
    const first = queue.ask({ sandbox: "demo", kind: "host", subject: { name: "pypi.example", port: 443 } });
    // The same subject with its keys in another order is the same request.
    const retry = queue.ask({ sandbox: "demo", kind: "host", subject: { port: 443, name: "pypi.example" } });
    const otherSandbox = queue.ask(host("pypi.example", "other"));
    expect(queue.pending()).toHaveLength(2);
    expect(queued).toHaveLength(2);
    queue.answer(queue.pending().find((request) => request.sandbox === "demo")?.id ?? "", { decision: "once" }, "root");
    await expect(first).resolves.toEqual({ decision: "once" });
    await expect(retry).resolves.toEqual({ decision: "once" });
    expect(queue.pending().map((request) => request.sandbox)).toEqual(["other"]);
    void otherSandbox;
  });

  it("keeps two identical MCP tool calls two requests: one answered once runs one call", async () => {
    const { queue } = queueWithLog();
    const call: ApprovalAsk = {
      sandbox: "demo",
      kind: "mcp-call",
      subject: { server: "bank", tool: "send_payment", arguments: '{"amount":100}' },
    };
    const answers: string[] = [];
    for (const asked of [queue.ask(call), queue.ask(call)]) void asked.then((answer) => answers.push(answer.decision));
    expect(queue.pending()).toHaveLength(2);
    queue.answer(queue.pending()[0]?.id ?? "", { decision: "once" }, "root");
    await vi.waitFor(() => expect(answers).toEqual(["once"]));
    expect(queue.pending()).toHaveLength(1);
    queue.answer(queue.pending()[0]?.id ?? "", { decision: "deny" }, "root");
    await vi.waitFor(() => expect(answers).toEqual(["once", "deny"]));
  });

  it("answers expired at the deadline when nobody answered, and forgets the request", async () => {
    const { queue } = queueWithLog({ deadlineMs: 30_000 });
    const answer = queue.ask(host("pypi.example"));
    vi.advanceTimersByTime(29_999);
    expect(queue.pending()).toHaveLength(1);
    vi.advanceTimersByTime(1);
    await expect(answer).resolves.toEqual({ decision: "expired" });
    expect(queue.pending()).toEqual([]);
  });

  it("takes an answer once: a second answer to the same id is refused naming forage-ctl approvals", () => {
    const { queue } = queueWithLog();
    void queue.ask(host("pypi.example"));
    const id = queue.pending()[0]?.id ?? "";
    queue.answer(id, { decision: "deny" }, "root");
    expect(() => queue.answer(id, { decision: "once" }, "root")).toThrow(/no pending approval .*forage-ctl approvals/);
  });

  it("refuses a way of approving that the request's kind refuses, with the reason, and leaves the request pending", async () => {
    const { queue, events } = queueWithLog();
    const answer = queue.ask({
      sandbox: "demo",
      kind: "ssh-sign",
      subject: { fingerprint: "SHA256:abc", comment: "me@laptop" },
    });
    const id = queue.pending()[0]?.id ?? "";
    let thrown: unknown;
    try {
      queue.answer(id, { decision: "always" }, "root");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({
      kind: "usage",
      message: expect.stringMatching(
        /^[a-z2-7]{6}: ssh-sign requests take --once or --for, not --always: an SSH key that always signs is a key given away/,
      ),
    });
    expect(queue.pending().map((request) => request.id)).toEqual([id]);
    queue.answer(id, { decision: "once" }, "root");
    await expect(answer).resolves.toEqual({ decision: "once" });
    await queue.flush();
    expect(events.map((event) => event.event)).toEqual(["approval-asked", "approval-answered"]);
  });

  it("refuses --for on an SSH signature whose destination is not shown in full, and takes it where it is", async () => {
    const { queue } = queueWithLog();
    const hostKey = `SHA256:${"A".repeat(43)}`;
    const sign = (destination?: SshSignSubject["destination"]) =>
      queue.ask({
        sandbox: "demo",
        kind: "ssh-sign",
        subject:
          destination === undefined
            ? { fingerprint: "SHA256:abc", comment: "me" }
            : { fingerprint: "SHA256:abc", comment: "me", destination },
      });
    const forTen = { decision: "for", untilMs: Date.now() + 600_000 } as const;
    // The attack: a login without the server's host key (method "publickey"), or data that is no login: --for would sign for any server.
    for (const destination of [undefined, { kind: "ssh-login", user: "git" } as const]) {
      void sign(destination);
      const id = queue.pending()[0]?.id ?? "";
      expect(() => queue.answer(id, forTen, "root")).toThrow(
        /takes --once only: (its destination is not known|the server's host key is not shown)/,
      );
      queue.answer(id, { decision: "once" }, "root");
    }
    // The control: a destination shown in full (a login with its host key, an SSHSIG namespace) takes --for.
    for (const destination of [
      { kind: "ssh-login", user: "git", hostKey } as const,
      { kind: "sshsig", namespace: "git", hash: "sha512" } as const,
    ]) {
      const answer = sign(destination);
      queue.answer(queue.pending()[0]?.id ?? "", forTen, "root");
      await expect(answer).resolves.toEqual(forTen);
    }
  });

  it.each(["host", "push"] as const)("takes --once, --for and --always for a %s request", (kind) => {
    for (const mode of ["once", "for", "always"] as const) expect(modeRefusal(kind, mode)).toBeNull();
  });

  it("refuses an unknown id naming forage-ctl approvals", () => {
    const { queue } = queueWithLog();
    expect(() => queue.answer("zzzzzz", { decision: "once" }, "root")).toThrow(
      `no pending approval "zzzzzz" (answered, expired, or never asked): see forage-ctl approvals`,
    );
  });

  it("writes the question and its answer to the sandbox's audit log, in that order", async () => {
    const { queue, events } = queueWithLog();
    void queue.ask({
      sandbox: "demo",
      kind: "push",
      subject: {
        remote: "origin",
        url: "/srv/up.git",
        ref: "refs/heads/fix",
        from: "1111111111111111",
        to: "2222222222222222",
        commitCount: 1,
        commits: ["2222222 fix"],
        diffstat: "1 file",
      },
    });
    const id = queue.pending()[0]?.id ?? "";
    queue.answer(id, { decision: "for", untilMs: Date.parse("2026-11-21T11:00:00Z") }, "user alice");
    await queue.flush();
    expect(events).toEqual([
      {
        sandbox: "demo",
        event: "approval-asked",
        detail: `${id} push origin refs/heads/fix 111111111111..222222222222 (1 commit) (deadline 30 s)`,
      },
      {
        sandbox: "demo",
        event: "approval-answered",
        detail: `${id} push origin refs/heads/fix 111111111111..222222222222 (1 commit): for until 2026-11-21T11:00:00.000Z by user alice`,
      },
    ]);
  });

  it("records an expiry as answered at its deadline, the sandbox's text escaped and quoted in the log's line", async () => {
    const { queue, events } = queueWithLog({ deadlineMs: 1000 });
    void queue.ask({
      sandbox: "demo",
      kind: "ssh-sign",
      subject: {
        fingerprint: "SHA256:abc",
        comment: "me@laptop",
        destination: { kind: "ssh-login", user: "git\nhost: github.com" },
      },
    });
    vi.advanceTimersByTime(1000);
    await queue.flush();
    expect(events.map((event) => event.detail.replace(/^[a-z2-7]{6} /, ""))).toEqual([
      'ssh-sign SHA256:abc (me@laptop) → ssh login as "git\\x0ahost: github.com" (deadline 1 s)',
      'ssh-sign SHA256:abc (me@laptop) → ssh login as "git\\x0ahost: github.com": expired at its deadline',
    ]);
  });

  it("expires an ask at once beyond the pending limit of its sandbox, so a flood cannot bury the human", async () => {
    const { queue, events } = queueWithLog({ maxPending: 2 });
    void queue.ask(host("a.example"));
    void queue.ask(host("b.example"));
    await expect(queue.ask(host("c.example"))).resolves.toEqual({ decision: "expired" });
    await expect(Promise.race([queue.ask(host("d.example", "other")), Promise.resolve("pending")])).resolves.toBe(
      "pending",
    );
    await queue.flush();
    expect(events.at(-2)?.detail).toBe("host c.example: expired at once (2 requests of this sandbox already pending)");
  });

  it("expires what is pending when closed (the daemon stopping)", async () => {
    const { queue } = queueWithLog();
    const answer = queue.ask(host("pypi.example"));
    queue.close();
    await expect(answer).resolves.toEqual({ decision: "expired" });
  });
});

describe("the approvals queue's audit events", () => {
  it("land in the sandbox's audit log as approval-asked and approval-answered", async () => {
    const dir = mkdtempSync(join(tmpdir(), "forage-approvals-"));
    try {
      const paths = runtimePaths(dir);
      const queue = new ApprovalQueue({
        audit: (sandbox, event, detail) => recordEvent(paths, sandbox, event, { detail }),
      });
      const answer = queue.ask(host("pypi.example"));
      queue.answer(queue.pending()[0]?.id ?? "", { decision: "deny" }, "root");
      await answer;
      await queue.flush();
      expect((await readEvents(paths, "demo")).map((event) => event.event)).toEqual([
        "approval-asked",
        "approval-answered",
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
