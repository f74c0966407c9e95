import dnsPacket, { type Answer } from "dns-packet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  filterDnsMessage,
  type DnsFilterDeps,
  type ResolvedAddress,
} from "../../../../runtime/gates/network/dns/dns-filter.js";
import { policyRules } from "../../../../generator/policy/network/policy-rules.js";
import type { NetworkPolicy } from "../../../../generator/policy/network/policy-schema.js";
import { SpecialAddresses } from "../../../../runtime/gates/shared/special-addresses.js";
import { NameApprovals } from "../../../../runtime/gates/network/name-approvals.js";
import type { ApprovalAsk, ApprovalDecision } from "../../../../runtime/gates/approvals/approval.js";
import { decodeAnswer, startZoneUpstream, type Decoded } from "../../../support/zone-upstream.js";

/*
 * Ask mode against a real upstream (test/support/zone-upstream.ts, which logs every name it is
 * asked, and answers from a zone the test changes): a name the allowlist does not name is held
 * and asked about through the real NameApprovals, whose questions the test answers when it
 * chooses; nothing goes upstream first, and what is admitted is what the approval covers.
 */
const zone: Record<string, Answer[]> = {
  "api.example.test": [{ type: "A", name: "api.example.test", ttl: 30, data: "44.0.113.1" }],
  "new.example.test": [{ type: "A", name: "new.example.test", ttl: 60, data: "44.0.113.90" }],
  "kept.example.test": [{ type: "A", name: "kept.example.test", ttl: 60, data: "44.0.113.91" }],
  "timed.example.test": [{ type: "A", name: "timed.example.test", ttl: 60, data: "44.0.113.93" }],
};

describe("the DNS filter in ask mode (restricted)", () => {
  let upstream: Awaited<ReturnType<typeof startZoneUpstream>>;
  let asked: string[] = [];
  const admitted: ResolvedAddress[] = [];
  const refused: string[] = [];
  const special = new SpecialAddresses({ v4: "10.100.0.0", v6: "fd66:a64::" }, []);
  let policy: NetworkPolicy = {
    mode: "restricted",
    allow: ["api.example.test"],
    deny: ["*.exfil.test"],
    sni: false,
    ask: true,
  };
  const deps = (): DnsFilterDeps => ({
    policy: () => policyRules(policy),
    upstream: { address: "127.0.0.1", port: upstream.port },
    admit: async (addresses) => void admitted.push(...addresses),
    refused: (refusal) => void refused.push(`${refusal.name} ${refusal.rule}`),
    refuseAddress: (address) => special.refusal(address),
  });
  afterAll(() => upstream.close());
  /** Questions the filter put to the human, each answered by the test when it chooses. */
  const questions: { ask: ApprovalAsk; answer: (decision: ApprovalDecision) => void }[] = [];
  const persisted: string[] = [];
  let approvals: NameApprovals;
  const askDeps = (): DnsFilterDeps => ({
    ...deps(),
    policy: () => {
      const own = policyRules(policy);
      return { ...own, allow: [...own.allow, ...approvals.rules()] };
    },
    ask: (name) => approvals.decide(name),
  });
  const held = (name: string): Promise<Decoded> => {
    const message = dnsPacket.encode({ id: 77, type: "query", questions: [{ type: "A", name, class: "IN" }] });
    return filterDnsMessage(askDeps(), message, "udp").then(decodeAnswer);
  };
  const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

  beforeAll(async () => {
    upstream = await startZoneUpstream(zone);
    asked = upstream.asked;
    approvals = new NameApprovals({
      sandbox: "web",
      ask: (ask) => new Promise((answer) => questions.push({ ask, answer })),
      persist: async (name) => (persisted.push(name), true),
      changed: () => undefined,
      log: () => undefined,
    });
  });

  it("holds a name not on the allowlist, asking once for both of its queries with the port it would admit, and sends nothing upstream until it is admitted", async () => {
    const [first, retry] = [held("new.example.test"), held("NEW.example.test")];
    await settle();
    expect(questions.map((q) => q.ask)).toEqual([
      { sandbox: "web", kind: "host", subject: { name: "new.example.test", port: 443 } },
    ]);
    expect(asked).not.toContain("new.example.test");
    questions.shift()?.answer({ decision: "once" });
    for (const answer of await Promise.all([first, retry]))
      expect(answer.answers?.map((a) => ("data" in a ? a.data : null))).toEqual(["44.0.113.90"]);
    // The port the question named, and no other: an approval is not every port of the name.
    expect(
      admitted.filter((each) => each.name === "new.example.test").map((each) => [each.address, each.ports]),
    ).toEqual([
      ["44.0.113.90", [443]],
      ["44.0.113.90", [443]],
    ]);
    // Admitted for the run: asked again, it resolves without a question.
    expect((await held("new.example.test")).rcode).toBe("NOERROR");
    expect(questions).toEqual([]);
    expect(persisted).toEqual([]);
  });

  it("holds an answer of an admitted name that points elsewhere now, asks with its addresses, and answers NXDOMAIN, admitting nothing, when that is denied", async () => {
    zone["new.example.test"] = [{ type: "A", name: "new.example.test", ttl: 60, data: "44.0.113.92" }];
    admitted.length = 0;
    const repointed = held("new.example.test");
    await settle();
    expect(questions.map((q) => q.ask.subject)).toEqual([
      { name: "new.example.test", port: 443, addresses: ["44.0.113.92"], approved: ["44.0.113.90"] },
    ]);
    expect(admitted).toEqual([]);
    questions.shift()?.answer({ decision: "deny" });
    expect((await repointed).rcode).toBe("NXDOMAIN");
    expect(refused).toContain("new.example.test denied when asked (new.example.test at 44.0.113.92)");
    expect((await held("new.example.test")).rcode).toBe("NXDOMAIN");
    expect(admitted).toEqual([]);
    expect(questions).toEqual([]);
  });

  it("admits a name approved --for a while only until then (its elements and the answer's TTL end with it), and asks again once it is up", async () => {
    const answer = held("timed.example.test");
    await settle();
    const untilMs = Date.now() + 1500;
    questions.shift()?.answer({ decision: "for", untilMs });
    const decoded = await answer;
    // No client caches the answer past the approval's end (the zone says 60 s).
    const [record] = decoded.answers ?? [];
    expect(record !== undefined && "ttl" in record ? record.ttl : null).toBeLessThanOrEqual(1);
    expect(admitted.find((each) => each.name === "timed.example.test")).toMatchObject({
      address: "44.0.113.93",
      ports: [443],
      untilMs,
    });
    await new Promise((resolve) => setTimeout(resolve, 1600));
    expect(approvals.expire()).toEqual([{ name: "timed.example.test", port: 443, addresses: ["44.0.113.93"] }]);
    const again = held("timed.example.test");
    await settle();
    expect(questions.map((q) => q.ask.subject)).toEqual([{ name: "timed.example.test", port: 443 }]);
    questions.shift()?.answer({ decision: "deny" });
    expect((await again).rcode).toBe("NXDOMAIN");
  });

  it("writes an `always` name to the sandbox's allowlist as name:443", async () => {
    const answer = held("kept.example.test");
    await settle();
    questions.shift()?.answer({ decision: "always" });
    expect((await answer).rcode).toBe("NOERROR");
    expect(persisted).toEqual(["kept.example.test:443"]);
    expect(admitted.find((each) => each.name === "kept.example.test")).toMatchObject({ ports: [443] });
  });

  it("answers a denied or unanswered name NXDOMAIN, never forwarded, and does not ask again", async () => {
    const denied = held("no.example.test");
    const ignored = held("later.example.test");
    await settle();
    questions.shift()?.answer({ decision: "deny" });
    questions.shift()?.answer({ decision: "expired" });
    expect([(await denied).rcode, (await ignored).rcode]).toEqual(["NXDOMAIN", "NXDOMAIN"]);
    expect(refused).toEqual(
      expect.arrayContaining(["no.example.test denied when asked", "later.example.test not answered when asked"]),
    );
    expect((await held("no.example.test")).rcode).toBe("NXDOMAIN");
    expect(questions).toEqual([]);
    expect(asked).not.toEqual(expect.arrayContaining(["no.example.test"]));
    expect(asked).not.toEqual(expect.arrayContaining(["later.example.test"]));
  });

  it("never asks about a denied name, or a name that could not go on an allowlist as it is (the reader refuses a wildcard label outright)", async () => {
    expect((await held("x.exfil.test")).rcode).toBe("NXDOMAIN");
    expect((await held("*.wild.test")).rcode).toBe("REFUSED");
    expect((await held("_srv.wild.test")).rcode).toBe("NXDOMAIN");
    expect(questions).toEqual([]);
    expect(refused).toEqual(
      expect.arrayContaining(["x.exfil.test deny *.exfil.test", "_srv.wild.test ask: not a host name"]),
    );
  });

  it("refuses without asking when the mode is not restricted or ask is off", async () => {
    policy = { mode: "restricted", allow: [], deny: [], sni: false };
    expect((await held("off.example.test")).rcode).toBe("NXDOMAIN");
    expect(questions).toEqual([]);
  });
});
