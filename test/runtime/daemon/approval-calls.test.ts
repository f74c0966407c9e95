import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApprovalAsk } from "../../../runtime/gates/approvals/approval.js";
import { readEvents } from "../../../runtime/core/audit-log.js";
import { runtimePaths } from "../../../runtime/core/paths.js";
import { askThroughDaemon } from "../../../runtime/daemon/approval-client.js";
import { callDaemon } from "../../../runtime/daemon/client.js";
import { startCallServer, type CallFixture } from "./call-fixture.js";

const ask: ApprovalAsk = {
  sandbox: "demo",
  kind: "host",
  subject: { name: "pypi.example", port: 443 },
  deadlineMs: 10_000,
};

/** The queue's pending requests as a client sees them, once one is there. */
async function pendingOn(socket: string): Promise<{ id: string; summary: string }[]> {
  for (let tries = 0; tries < 100; tries++) {
    const pending = await callDaemon("approvals", {}, socket);
    if (pending.length > 0) return pending;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return [];
}

/*
 * The approvals calls through the daemon's dispatch on a real unix socket (call-fixture.ts): the
 * integration test (test/integration/approvals.test.ts) drives the real daemon's sockets and users.
 */
describe("the approvals calls on root's socket", () => {
  let fixture: CallFixture;
  const logged: string[] = [];
  beforeAll(async () => {
    fixture = await startCallServer(4242, "root");
  });
  afterAll(() => fixture.close());

  it("holds an approvalAsk until approve answers it, and lists it meanwhile", async () => {
    const answer = askThroughDaemon({ log: (line) => void logged.push(line), socket: fixture.socket })(ask);
    const [request] = await pendingOn(fixture.socket);
    expect(request?.summary).toBe("pypi.example:443");
    const answered = await callDaemon("approve", { id: request?.id ?? "", mode: "once" }, fixture.socket);
    expect(answered).toMatchObject({ id: request?.id, sandbox: "demo", kind: "host" });
    await expect(answer).resolves.toEqual({ decision: "once" });
    expect(logged).toEqual([]);
  });

  it("answers for DURATION as a decision with its end time", async () => {
    const answer = callDaemon("approvalAsk", { ...ask, subject: { name: "files.example" } }, fixture.socket);
    const [request] = await pendingOn(fixture.socket);
    const before = Date.now();
    await callDaemon("approve", { id: request?.id ?? "", mode: "for", forMs: 600_000 }, fixture.socket);
    const decided = await answer;
    expect(decided.decision).toBe("for");
    expect(decided.decision === "for" ? decided.untilMs - before : 0).toBeGreaterThanOrEqual(600_000);
  });

  it("denies: the asker hears deny, and the question and answer are in the sandbox's audit log", async () => {
    const answer = callDaemon("approvalAsk", { ...ask, subject: { name: "denied.example" } }, fixture.socket);
    const [request] = await pendingOn(fixture.socket);
    await callDaemon("deny", { id: request?.id ?? "" }, fixture.socket);
    await expect(answer).resolves.toEqual({ decision: "deny" });
    // The queue writes its audit events in the background, in order.
    const written = async () =>
      (await readEvents(runtimePaths(join(fixture.dir, "state"), {}), "demo")).filter((event) =>
        event.detail?.includes("denied.example"),
      );
    await expect.poll(async () => (await written()).length).toBe(2);
    expect((await written()).map((event) => [event.event, event.detail?.replace(/^[a-z2-7]{6} /, "")])).toEqual([
      ["approval-asked", "host denied.example (deadline 10 s)"],
      ["approval-answered", "host denied.example: deny by root"],
    ]);
  });

  it("refuses to answer an id that is not pending, naming forage-ctl approvals", async () => {
    await expect(callDaemon("approve", { id: "zzzzzz", mode: "once" }, fixture.socket)).rejects.toThrow(
      /no pending approval "zzzzzz".*see forage-ctl approvals/,
    );
  });

  it("answers expired when nobody answers by the deadline", async () => {
    await expect(
      callDaemon("approvalAsk", { ...ask, subject: { name: "slow.example" }, deadlineMs: 200 }, fixture.socket),
    ).resolves.toEqual({ decision: "expired" });
  });
});

describe("the approvals calls on the user's socket", () => {
  let fixture: CallFixture;
  beforeAll(async () => {
    fixture = await startCallServer(4242, "user");
  });
  afterAll(() => fixture.close());

  it("lists and answers, but refuses approvalAsk: only root's own processes ask", async () => {
    expect(await callDaemon("approvals", {}, fixture.socket)).toEqual([]);
    await expect(callDaemon("approvalAsk", ask, fixture.socket)).rejects.toThrow(
      /approvalAsk is for root's own host processes/,
    );
    await expect(callDaemon("deny", { id: "zzzzzz" }, fixture.socket)).rejects.toThrow(/no pending approval/);
  });
});

describe("the approvals calls on the gateway account's socket", () => {
  let fixture: CallFixture;
  beforeAll(async () => {
    fixture = await startCallServer(4242, "gateway");
  });
  afterAll(() => fixture.close());

  it.each(["approvals", "approve", "deny", "approvalAsk"] as const)("refuses %s", async (op) => {
    const requests = {
      approvals: {},
      approve: { id: "zzzzzz", mode: "once" },
      deny: { id: "zzzzzz" },
      approvalAsk: ask,
    } as const;
    await expect(callDaemon(op, requests[op] as never, fixture.socket)).rejects.toThrow(
      `"${op}" is not for the gateway account`,
    );
  });
});

describe("askThroughDaemon without a daemon", () => {
  it("answers expired, never an approval, and logs why", async () => {
    const logged: string[] = [];
    await expect(
      askThroughDaemon({ log: (line) => void logged.push(line), socket: "/nonexistent/daemon-root.sock" })(ask),
    ).resolves.toEqual({ decision: "expired" });
    expect(logged).toEqual([
      "approval for demo host denied without asking: /nonexistent/daemon-root.sock is not the daemon's root socket (missing, or not root's)",
    ]);
  });
});
