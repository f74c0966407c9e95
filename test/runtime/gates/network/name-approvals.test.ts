import { describe, expect, it } from "vitest";
import type { ApprovalAsk, ApprovalDecision, HostSubject } from "../../../../runtime/gates/approvals/approval.js";
import {
  NameApprovals,
  type AdmittedLookup,
  type NameOutcome,
} from "../../../../runtime/gates/network/name-approvals.js";

/*
 * The ask mode's memory of a sandbox's answers (the DNS filter test covers the questions and
 * answers on the wire): what an approval admits (the name, its port, the addresses of the
 * answer it was for, for as long as it said), limits on what a sandbox can make the human see,
 * and how long a refusal holds.
 */
function approvals(
  answer: (ask: ApprovalAsk) => Promise<ApprovalDecision>,
  persist = async (): Promise<boolean> => true,
) {
  let now = 1_000_000;
  const logged: string[] = [];
  const asked: HostSubject[] = [];
  const names = new NameApprovals({
    sandbox: "web",
    ask: (ask) => {
      if (ask.kind === "host") asked.push(ask.subject);
      return answer(ask);
    },
    persist,
    changed: () => undefined,
    log: (line) => void logged.push(line),
    now: () => now,
  });
  return { names, logged, asked, advance: (ms: number) => void (now += ms), now: () => now };
}

/** The refusal, or "admitted" for a lookup (closed at once, its answer not pinned), or "policy". */
const verdictOf = (outcome: NameOutcome): string => {
  if ("refused" in outcome) return outcome.refused;
  if ("policy" in outcome) return "policy";
  outcome.lookup.close();
  return "admitted";
};
const lookupOf = (outcome: NameOutcome): AdmittedLookup => {
  if (!("lookup" in outcome)) throw new Error(`expected a lookup, got ${JSON.stringify(outcome)}`);
  return outcome.lookup;
};
/** A lookup's answer with `addresses`, admitted as far as it goes. */
const answered = async (names: NameApprovals, name: string, addresses: string[]): Promise<string> => {
  const lookup = lookupOf(await names.decide(name));
  try {
    const admitted = await lookup.admit(addresses);
    return "refused" in admitted ? admitted.refused : `port ${lookup.port}: ${[...admitted.untilMs.keys()].join(", ")}`;
  } finally {
    lookup.close();
  }
};

describe("a sandbox's answers about names (network ask mode)", () => {
  it("asks with the name and the port it would admit (443), and no addresses: nothing was looked up", async () => {
    const { names, asked } = approvals(async () => ({ decision: "once" }));
    expect(await answered(names, "pypi.example.org", ["192.0.2.7"])).toBe("port 443: 192.0.2.7");
    expect(asked).toEqual([{ name: "pypi.example.org", port: 443 }]);
  });

  it("admits the addresses of the answer the approval was for, and asks again, showing the new answer, for an answer with another address", async () => {
    const answers: ApprovalDecision[] = [{ decision: "once" }, { decision: "deny" }];
    const { names, asked } = approvals(async () => answers.shift() ?? { decision: "deny" });
    expect(await answered(names, "moving.example.org", ["192.0.2.7"])).toBe("port 443: 192.0.2.7");
    expect(await answered(names, "moving.example.org", ["192.0.2.7"])).toBe("port 443: 192.0.2.7");
    expect(await answered(names, "moving.example.org", ["198.51.100.9"])).toBe(
      "denied when asked (moving.example.org at 198.51.100.9)",
    );
    expect(asked).toEqual([
      { name: "moving.example.org", port: 443 },
      { name: "moving.example.org", port: 443, addresses: ["198.51.100.9"], approved: ["192.0.2.7"] },
    ]);
    // The denied address is not asked about again; the approved one still answers.
    expect(await answered(names, "moving.example.org", ["198.51.100.9", "192.0.2.7"])).toBe(
      "denied when asked (moving.example.org at 198.51.100.9)",
    );
    expect(await answered(names, "moving.example.org", ["192.0.2.7"])).toBe("port 443: 192.0.2.7");
    expect(asked).toHaveLength(2);
    expect(names.admittedAt("moving.example.org", 443)).toEqual(new Set(["192.0.2.7"]));
    expect(names.admittedAt("moving.example.org", 8443)).toBeNull();
  });

  it("does not ask about an answer with more addresses than a question shows: the name belongs on the allowlist", async () => {
    const { names, asked } = approvals(async () => ({ decision: "once" }));
    expect(await answered(names, "wide.example.org", ["192.0.2.7"])).toBe("port 443: 192.0.2.7");
    const many = Array.from({ length: 65 }, (_, i) => `198.51.100.${i}`);
    expect(await answered(names, "wide.example.org", many)).toBe(
      "ask: an answer of 65 addresses is more than a question shows (64): put wide.example.org on the allowlist",
    );
    expect(asked).toHaveLength(1);
  });

  it("pins what every lookup held for the question answered (the A and the AAAA), and nothing a later lookup brings", async () => {
    let approve: (decision: ApprovalDecision) => void = () => undefined;
    const { names, asked } = approvals(() => new Promise((resolve) => (approve = resolve)));
    const [a, aaaa] = [names.decide("both.example.org"), names.decide("both.example.org")];
    await new Promise((resolve) => setTimeout(resolve, 0));
    approve({ decision: "once" });
    const [forA, forAaaa] = [lookupOf(await a), lookupOf(await aaaa)];
    await forA.admit(["192.0.2.7"]);
    await forAaaa.admit(["2001:db8::7"]);
    forA.close();
    forAaaa.close();
    expect([...(names.admittedAt("both.example.org", 443) ?? [])].sort()).toEqual(["192.0.2.7", "2001:db8::7"]);
    const later = answered(names, "both.example.org", ["192.0.2.8"]);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(asked.at(-1)).toEqual({
      name: "both.example.org",
      port: 443,
      addresses: ["192.0.2.8"],
      approved: ["192.0.2.7", "2001:db8::7"],
    });
    approve({ decision: "deny" });
    expect(await later).toMatch(/^denied when asked/);
  });

  it("admits a name approved --for until its time is up: then it gives the addresses back and the next lookup asks again", async () => {
    const { names, asked, advance, now } = approvals(async () => ({ decision: "for", untilMs: now() + 60_000 }));
    expect(await answered(names, "timed.example.org", ["192.0.2.7"])).toBe("port 443: 192.0.2.7");
    expect(names.view()).toEqual([
      {
        name: "timed.example.org",
        port: 443,
        addresses: [{ address: "192.0.2.7", until: new Date(now() + 60_000).toISOString() }],
      },
    ]);
    advance(59_999);
    expect(names.expire()).toEqual([]);
    expect(verdictOf(await names.decide("timed.example.org"))).toBe("admitted");
    advance(1);
    expect(names.expire()).toEqual([{ name: "timed.example.org", port: 443, addresses: ["192.0.2.7"] }]);
    expect(names.forThisRun()).toEqual([]);
    expect(names.admittedAt("timed.example.org", 443)).toBeNull();
    expect(await answered(names, "timed.example.org", ["192.0.2.7"])).toBe("port 443: 192.0.2.7");
    expect(asked).toHaveLength(2);
  });

  it("writes an `always` name to the allowlist as name:443, which the policy then allows", async () => {
    const persisted: string[] = [];
    const { names } = approvals(
      async () => ({ decision: "always" }),
      async (entry?: string) => (persisted.push(entry ?? ""), true),
    );
    expect(verdictOf(await names.decide("kept.example.org"))).toBe("policy");
    expect(persisted).toEqual(["kept.example.org:443"]);
    expect(names.rules()).toEqual([
      { entry: "kept.example.org:443", host: "kept.example.org", wildcard: false, port: 443 },
    ]);
    expect(names.forThisRun()).toEqual([]);
  });

  it("admits an `always` name as once, for the run, when it cannot be written to the allowlist, and says so", async () => {
    const { names, logged } = approvals(
      async () => ({ decision: "always" }),
      async () => false,
    );
    expect(await answered(names, "kept.example.org", ["192.0.2.7"])).toBe("port 443: 192.0.2.7");
    expect(names.rules()).toEqual([]);
    expect(logged).toEqual([
      "kept.example.org:443 was approved always but could not be added to the allowlist: admitted as once, for this run only",
    ]);
    expect(names.forThisRun()).toEqual(["kept.example.org"]);
  });

  it("keeps at most eight questions open at once; the ninth name is refused without asking", async () => {
    const { names, asked } = approvals(() => new Promise(() => undefined));
    for (let i = 0; i < 8; i++) void names.decide(`n${i}.example.org`);
    expect(verdictOf(await names.decide("n8.example.org"))).toBe("ask: 8 questions already open");
    expect(asked).toHaveLength(8);
  });

  it("asks again about an unanswered name after five minutes, never about a denied one", async () => {
    const answers: ApprovalDecision[] = [{ decision: "expired" }, { decision: "deny" }, { decision: "once" }];
    const { names, asked, advance } = approvals(async () => answers.shift() ?? { decision: "deny" });
    expect(verdictOf(await names.decide("slow.example.org"))).toBe("not answered when asked");
    advance(4 * 60_000);
    expect(verdictOf(await names.decide("slow.example.org"))).toBe("not answered when asked");
    expect(verdictOf(await names.decide("no.example.org"))).toBe("denied when asked");
    advance(60_001);
    expect(await answered(names, "slow.example.org", ["192.0.2.7"])).toBe("port 443: 192.0.2.7");
    advance(24 * 3600_000);
    expect(verdictOf(await names.decide("no.example.org"))).toBe("denied when asked");
    expect(asked.map((subject) => subject.name)).toEqual(["slow.example.org", "no.example.org", "slow.example.org"]);
  });

  it("refuses, and logs why, when the question cannot be put (no daemon)", async () => {
    const { names, logged } = approvals(() => Promise.reject(new Error("the daemon's queue cannot be reached")));
    expect(verdictOf(await names.decide("x.example.org"))).toBe("not answered when asked");
    expect(names.view()).toEqual([]);
    expect(logged).toEqual(["asking about x.example.org failed: the daemon's queue cannot be reached"]);
  });
});
