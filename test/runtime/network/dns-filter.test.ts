import { createSocket, type Socket } from "node:dgram";
import dnsPacket, { type Answer, type Packet } from "dns-packet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { filterDnsMessage, type DnsFilterDeps, type ResolvedAddress } from "../../../runtime/network/dns/dns-filter.js";
import { policyRules } from "../../../generator/policy/network/policy-rules.js";
import type { NetworkPolicy } from "../../../generator/policy/network/policy-schema.js";
import { SpecialAddresses } from "../../../runtime/network/special-addresses.js";
import { NameApprovals } from "../../../runtime/network/name-approvals.js";
import type { ApprovalAsk, ApprovalDecision } from "../../../runtime/approvals/approval.js";

/*
 * The DNS filter against a real upstream: a DNS server on loopback that answers from `zone` and
 * logs every name it is asked, so a test can show what was (never) forwarded.
 */
const zone: Record<string, Answer[]> = {
  "api.example.test": [{ type: "A", name: "api.example.test", ttl: 30, data: "44.0.113.1" }],
  // One answer with the whole chain, plus a record off the chain the filter must drop.
  "www.example.test": [
    { type: "CNAME", name: "www.example.test", ttl: 60, data: "edge.cdn.test" },
    { type: "A", name: "edge.cdn.test", ttl: 20, data: "44.0.113.2" },
    { type: "A", name: "injected.other.test", ttl: 20, data: "44.0.100.66" },
  ],
  // A chain that stops at a CNAME: the filter asks for the target itself.
  "split.example.test": [{ type: "CNAME", name: "split.example.test", ttl: 60, data: "far.cdn.test" }],
  "far.cdn.test": [{ type: "A", name: "far.cdn.test", ttl: 40, data: "44.0.113.3" }],
  "loop.example.test": [{ type: "CNAME", name: "loop.example.test", ttl: 60, data: "loop.example.test" }],
  "inside.example.test": [
    { type: "A", name: "inside.example.test", ttl: 60, data: "169.254.169.254" },
    { type: "A", name: "inside.example.test", ttl: 60, data: "192.168.1.1" },
    { type: "A", name: "inside.example.test", ttl: 60, data: "10.100.3.2" },
    { type: "A", name: "inside.example.test", ttl: 60, data: "127.0.0.1" },
    { type: "A", name: "inside.example.test", ttl: 60, data: "10.20.0.5" },
    { type: "A", name: "inside.example.test", ttl: 60, data: "44.0.113.77" },
  ],
  // A name under an any-port wildcard aliased to names the allowlist allows on one port only.
  "alias.wide.test": [
    { type: "CNAME", name: "alias.wide.test", ttl: 60, data: "narrow.example.test" },
    { type: "A", name: "narrow.example.test", ttl: 60, data: "44.0.113.50" },
  ],
  "plain.wide.test": [{ type: "A", name: "plain.wide.test", ttl: 60, data: "44.0.113.51" }],
  "x.ports.test": [{ type: "CNAME", name: "x.ports.test", ttl: 60, data: "other-port.example.test" }],
  "other-port.example.test": [{ type: "A", name: "other-port.example.test", ttl: 60, data: "44.0.113.52" }],
  "many.example.test": Array.from({ length: 40 }, (_, i) => ({ type: "A" as const, name: "many.example.test", ttl: 60, data: `44.0.113.${i + 10}` })),
};

/** A decoded answer; dns-packet's types leave out the rcode it decodes. */
type Decoded = Packet & { rcode?: string };
function decode(message: Buffer | null): Decoded {
  if (message === null) throw new Error("no answer");
  return dnsPacket.decode(message) as Decoded;
}

describe("the DNS filter", () => {
  let upstream: Socket;
  let port = 0;
  const asked: string[] = [];
  const admitted: ResolvedAddress[] = [];
  const refused: string[] = [];
  const special = new SpecialAddresses({ v4: "10.100.0.0", v6: "fd66:a64::" }, ["10.20.0.0/16"]);
  let policy: NetworkPolicy = {
    mode: "restricted",
    allow: [
      "api.example.test",
      "www.example.test",
      "inside.example.test",
      "split.example.test",
      "loop.example.test",
      "many.example.test",
      "*.ports.test:443",
      "*.wide.test",
      "narrow.example.test:443",
      "other-port.example.test:8080",
    ],
    deny: [],
    sni: false,
  };
  const deps = (): DnsFilterDeps => ({
    policy: () => policyRules(policy),
    upstream: { address: "127.0.0.1", port },
    admit: async (addresses) => void admitted.push(...addresses),
    refused: (refusal) => void refused.push(`${refusal.name} ${refusal.rule}`),
    refuseAddress: (address) => special.refusal(address),
  });

  beforeAll(async () => {
    upstream = createSocket("udp4");
    upstream.on("message", (message, from) => {
      const query = dnsPacket.decode(message);
      const question = query.questions?.[0];
      if (question === undefined) return;
      asked.push(question.name);
      const answers = zone[question.name] ?? [];
      upstream.send(dnsPacket.encode({ id: query.id, type: "response", flags: answers.length === 0 ? 3 : 0, questions: query.questions, answers }), from.port, from.address);
    });
    await new Promise<void>((resolve) => upstream.bind(0, "127.0.0.1", resolve));
    port = upstream.address().port;
  });
  afterAll(() => upstream.close());

  const ask = async (name: string, type: "A" | "AAAA" | "TXT" = "A", transport: "udp" | "tcp" = "udp"): Promise<Decoded> => {
    const message = dnsPacket.encode({ id: 4242, type: "query", flags: dnsPacket.RECURSION_DESIRED, questions: [{ type, name, class: "IN" }] });
    const answer = await filterDnsMessage(deps(), message, transport);
    if (answer === null) throw new Error("no answer");
    return decode(answer);
  };

  it("forwards an allowed name and admits its address before answering", async () => {
    const answer = await ask("API.example.test");
    expect(answer.id).toBe(4242);
    expect(answer.rcode).toBe("NOERROR");
    expect(answer.answers?.map((a) => ("data" in a ? a.data : null))).toEqual(["44.0.113.1"]);
    expect(admitted).toContainEqual({ address: "44.0.113.1", family: 4, ports: null, ttl: 30, name: "api.example.test", chain: [] });
  });

  it("answers a refused name NXDOMAIN without forwarding it", async () => {
    const answer = await ask("c2VjcmV0.exfil.test");
    expect(answer.rcode).toBe("NXDOMAIN");
    expect(asked).not.toContain("c2VjcmV0.exfil.test");
    expect(refused).toContain("c2vjcmv0.exfil.test not in allow"); // names are compared and logged in lower case
  });

  it("follows the CNAME chain in an answer and drops records off the chain", async () => {
    const answer = await ask("www.example.test");
    expect(answer.answers?.map((a) => `${a.type} ${a.name}`)).toEqual(["CNAME www.example.test", "A edge.cdn.test"]);
    expect(admitted.map((a) => a.address)).toContain("44.0.113.2");
    expect(admitted.map((a) => a.address)).not.toContain("44.0.100.66");
  });

  it("asks for a CNAME's target itself when the answer stops at the alias", async () => {
    const answer = await ask("split.example.test");
    expect(answer.answers?.map((a) => `${a.type} ${a.name}`)).toEqual(["CNAME split.example.test", "A far.cdn.test"]);
    expect(asked).toContain("far.cdn.test");
    expect(admitted).toContainEqual(expect.objectContaining({ address: "44.0.113.3", name: "split.example.test" }));
  });

  it("leaves out and never admits addresses of the host, link-local, the sandboxes, and private ranges not admitted", async () => {
    const answer = await ask("inside.example.test");
    expect(answer.answers?.map((a) => ("data" in a ? a.data : null))).toEqual(["10.20.0.5", "44.0.113.77"]);
    const admittedNow = admitted.map((a) => a.address);
    for (const address of ["169.254.169.254", "192.168.1.1", "10.100.3.2", "127.0.0.1"]) {
      expect(admittedNow).not.toContain(address);
      expect(refused.some((line) => line.startsWith("inside.example.test") && line.includes(address))).toBe(true);
    }
    expect(refused).toContain("inside.example.test 192.168.1.1 is private (not in network.admitPrivate)");
  });

  it("answers SERVFAIL to a CNAME loop", async () => {
    expect((await ask("loop.example.test")).rcode).toBe("SERVFAIL");
  });

  it("carries an entry's port restriction to the admitted addresses", async () => {
    zone["y.ports.test"] = [{ type: "A", name: "y.ports.test", ttl: 5, data: "44.0.113.9" }];
    await ask("y.ports.test");
    expect(admitted).toContainEqual({ address: "44.0.113.9", family: 4, ports: [443], ttl: 5, name: "y.ports.test", chain: [] });
  });

  it("admits an address reached through a CNAME only on the ports its allowlisted target is allowed on", async () => {
    // GIVEN *.wide.test (any port) and narrow.example.test:443; alias.wide.test → narrow.example.test
    const answer = await ask("alias.wide.test");
    expect(answer.answers?.map((a) => `${a.type} ${a.name}`)).toEqual(["CNAME alias.wide.test", "A narrow.example.test"]);
    expect(admitted).toContainEqual({ address: "44.0.113.50", family: 4, ports: [443], ttl: 60, name: "alias.wide.test", chain: ["narrow.example.test"] });
    // Control: a name under the same wildcard without such an alias keeps every port.
    await ask("plain.wide.test");
    expect(admitted).toContainEqual(expect.objectContaining({ address: "44.0.113.51", ports: null }));
  });

  it("refuses a CNAME chain whose allowlisted names share no port, admitting nothing", async () => {
    // x.ports.test is allowed on 443, its target other-port.example.test on 8080 only.
    const answer = await ask("x.ports.test");
    expect(answer.rcode).toBe("REFUSED");
    expect(admitted.map((a) => a.address)).not.toContain("44.0.113.52");
    expect(refused).toContain("x.ports.test CNAME to other-port.example.test (allowed on port 8080 only) shares no port with x.ports.test");
  });

  it("gives restricted sandboxes an empty answer for types other than A, AAAA and CNAME, unforwarded", async () => {
    const before = asked.length;
    const answer = await ask("api.example.test", "TXT");
    expect(answer.rcode).toBe("NOERROR");
    expect(answer.answers).toEqual([]);
    expect(asked.length).toBe(before);
  });

  it("sets TC on a UDP answer over 512 bytes, and answers in full over TCP", async () => {
    const udp = await ask("many.example.test");
    expect(((udp.flags ?? 0) & 0x200) !== 0).toBe(true);
    expect(udp.answers).toEqual([]);
    expect((await ask("many.example.test", "A", "tcp")).answers).toHaveLength(40);
  });

  it("refuses what is not one plain query, and drops what is not DNS", async () => {
    const two = dnsPacket.encode({
      id: 7,
      type: "query",
      questions: [
        { type: "A", name: "a.test" },
        { type: "A", name: "b.test" },
      ],
    });
    expect(decode(await filterDnsMessage(deps(), two, "udp")).rcode).toBe("REFUSED");
    const response = dnsPacket.encode({ id: 8, type: "response", questions: [{ type: "A", name: "api.example.test" }] });
    expect(decode(await filterDnsMessage(deps(), response, "udp")).rcode).toBe("REFUSED");
    expect(await filterDnsMessage(deps(), Buffer.from("not dns"), "udp")).toBeNull();
  });

  it("answers REFUSED to everything in mode none, and forwards any name but the denied ones in full", async () => {
    policy = { ...policy, mode: "none" };
    expect((await ask("api.example.test")).rcode).toBe("REFUSED");
    policy = { mode: "full", allow: [], deny: ["*.exfil.test"], sni: false };
    expect((await ask("www.example.test")).rcode).toBe("NOERROR");
    expect((await ask("x.exfil.test")).rcode).toBe("NXDOMAIN");
    expect(asked).not.toContain("x.exfil.test");
  });

  describe("in ask mode", () => {
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
      return filterDnsMessage(askDeps(), message, "udp").then(decode);
    };
    const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

    beforeAll(() => {
      zone["new.example.test"] = [{ type: "A", name: "new.example.test", ttl: 60, data: "44.0.113.90" }];
      zone["kept.example.test"] = [{ type: "A", name: "kept.example.test", ttl: 60, data: "44.0.113.91" }];
      approvals = new NameApprovals({
        sandbox: "web",
        ask: (ask) => new Promise((answer) => questions.push({ ask, answer })),
        persist: async (name) => (persisted.push(name), true),
        changed: () => undefined,
        log: () => undefined,
      });
    });

    it("holds a name not on the allowlist, asking once for both of its queries, and sends nothing upstream until it is admitted", async () => {
      policy = { mode: "restricted", allow: ["api.example.test"], deny: ["*.exfil.test"], sni: false, ask: true };
      const [first, retry] = [held("new.example.test"), held("NEW.example.test")];
      await settle();
      expect(questions.map((q) => q.ask)).toEqual([{ sandbox: "web", kind: "host", subject: { name: "new.example.test" } }]);
      expect(asked).not.toContain("new.example.test");
      questions.shift()?.answer({ decision: "once" });
      for (const answer of await Promise.all([first, retry])) expect(answer.answers?.map((a) => ("data" in a ? a.data : null))).toEqual(["44.0.113.90"]);
      expect(admitted).toContainEqual(expect.objectContaining({ address: "44.0.113.90", name: "new.example.test", ports: null }));
      // Admitted for the run: asked again, it resolves without a question.
      expect((await held("new.example.test")).rcode).toBe("NOERROR");
      expect(questions).toEqual([]);
      expect(persisted).toEqual([]);
    });

    it("writes an `always` name to the sandbox's allowlist", async () => {
      const answer = held("kept.example.test");
      await settle();
      questions.shift()?.answer({ decision: "always" });
      expect((await answer).rcode).toBe("NOERROR");
      expect(persisted).toEqual(["kept.example.test"]);
    });

    it("answers a denied or unanswered name NXDOMAIN, never forwarded, and does not ask again", async () => {
      const denied = held("no.example.test");
      const ignored = held("later.example.test");
      await settle();
      questions.shift()?.answer({ decision: "deny" });
      questions.shift()?.answer({ decision: "expired" });
      expect([(await denied).rcode, (await ignored).rcode]).toEqual(["NXDOMAIN", "NXDOMAIN"]);
      expect(refused).toEqual(expect.arrayContaining(["no.example.test denied when asked", "later.example.test not answered when asked"]));
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
      expect(refused).toEqual(expect.arrayContaining(["x.exfil.test deny *.exfil.test", "_srv.wild.test ask: not a host name"]));
    });

    it("refuses without asking when the mode is not restricted or ask is off", async () => {
      policy = { mode: "restricted", allow: [], deny: [], sni: false };
      expect((await held("off.example.test")).rcode).toBe("NXDOMAIN");
      expect(questions).toEqual([]);
    });
  });

  it("answers SERVFAIL when the upstream does not answer", async () => {
    policy = { mode: "full", allow: [], deny: [], sni: false };
    const silent = createSocket("udp4");
    await new Promise<void>((resolve) => silent.bind(0, "127.0.0.1", resolve));
    const message = dnsPacket.encode({ id: 1, type: "query", questions: [{ type: "A", name: "api.example.test" }] });
    const failures: string[] = [];
    const answer = await filterDnsMessage({ ...deps(), upstream: { address: "127.0.0.1", port: silent.address().port }, upstreamFailed: (error) => void failures.push(error.message) }, message, "udp");
    silent.close();
    expect(decode(answer).rcode).toBe("SERVFAIL");
    expect(failures[0]).toContain("did not answer");
  }, 10_000);
});
