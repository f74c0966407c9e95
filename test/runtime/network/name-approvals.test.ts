import { describe, expect, it } from "vitest";
import type { ApprovalAsk, ApprovalDecision } from "../../../runtime/approvals/approval.js";
import { NameApprovals } from "../../../runtime/network/name-approvals.js";

/*
 * The ask mode's memory of a sandbox's answers (the DNS filter test covers the questions and
 * answers on the wire): limits on what a sandbox can make the human see, and how long a refusal
 * holds.
 */
function approvals(answer: (ask: ApprovalAsk) => Promise<ApprovalDecision>, persist = async (): Promise<boolean> => true) {
  let now = 1_000_000;
  const logged: string[] = [];
  const asked: string[] = [];
  const names = new NameApprovals({
    sandbox: "web",
    ask: (ask) => (asked.push(ask.kind === "host" ? ask.subject.name : ""), answer(ask)),
    persist,
    changed: () => undefined,
    log: (line) => void logged.push(line),
    now: () => now,
  });
  return { names, logged, asked, advance: (ms: number) => void (now += ms) };
}

describe("a sandbox's answers about names (network ask mode)", () => {
  it("keeps at most eight questions open at once; the ninth name is refused without asking", async () => {
    const { names, asked } = approvals(() => new Promise(() => undefined));
    for (let i = 0; i < 8; i++) void names.decide(`n${i}.example.org`);
    expect(await names.decide("n8.example.org")).toBe("ask: 8 questions already open");
    expect(asked).toHaveLength(8);
  });

  it("asks again about an unanswered name after five minutes, never about a denied one", async () => {
    const answers: ApprovalDecision[] = [{ decision: "expired" }, { decision: "deny" }, { decision: "once" }];
    const { names, asked, advance } = approvals(async () => answers.shift() ?? { decision: "deny" });
    expect(await names.decide("slow.example.org")).toBe("not answered when asked");
    advance(4 * 60_000);
    expect(await names.decide("slow.example.org")).toBe("not answered when asked");
    expect(await names.decide("no.example.org")).toBe("denied when asked");
    advance(60_001);
    expect(await names.decide("slow.example.org")).toBeNull();
    advance(24 * 3600_000);
    expect(await names.decide("no.example.org")).toBe("denied when asked");
    expect(asked).toEqual(["slow.example.org", "no.example.org", "slow.example.org"]);
    expect(names.rules().map((rule) => rule.entry)).toEqual(["slow.example.org"]);
  });

  it("admits an `always` name for the run when it cannot be written to the allowlist, and says so", async () => {
    const { names, logged } = approvals(
      async () => ({ decision: "always" }),
      async () => false,
    );
    expect(await names.decide("kept.example.org")).toBeNull();
    expect(names.rules()).toEqual([{ entry: "kept.example.org", host: "kept.example.org", wildcard: false, port: null }]);
    expect(logged).toEqual(["kept.example.org was approved always but could not be added to the allowlist: admitted for this run only"]);
    expect(names.forThisRun()).toEqual(["kept.example.org"]);
  });

  it("tells the names that last only for this run from those written to the allowlist", async () => {
    const answers: ApprovalDecision[] = [{ decision: "once" }, { decision: "always" }];
    const { names } = approvals(async () => answers.shift() ?? { decision: "deny" });
    await names.decide("once.example.org");
    await names.decide("kept.example.org");
    expect(names.rules().map((rule) => rule.entry)).toEqual(["once.example.org", "kept.example.org"]);
    expect(names.forThisRun()).toEqual(["once.example.org"]);
  });

  it("refuses, and logs why, when the question cannot be put (no daemon)", async () => {
    const { names, logged } = approvals(() => Promise.reject(new Error("the daemon's queue cannot be reached")));
    expect(await names.decide("x.example.org")).toBe("not answered when asked");
    expect(names.rules()).toEqual([]);
    expect(logged).toEqual(["asking about x.example.org failed: the daemon's queue cannot be reached"]);
  });
});
