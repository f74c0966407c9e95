import { createSocket } from "node:dgram";
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
import { decodeAnswer, startZoneUpstream, type Decoded } from "../../../support/zone-upstream.js";

/*
 * The DNS filter against a real upstream (test/support/zone-upstream.ts), which logs every name
 * it is asked, so a test can show what was (never) forwarded. Ask mode: dns-filter-ask.test.ts.
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
  "many.example.test": Array.from({ length: 40 }, (_, i) => ({
    type: "A" as const,
    name: "many.example.test",
    ttl: 60,
    data: `44.0.113.${i + 10}`,
  })),
};

describe("the DNS filter", () => {
  let upstream: Awaited<ReturnType<typeof startZoneUpstream>>;
  let port = 0;
  let asked: string[] = [];
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
    upstream = await startZoneUpstream(zone);
    port = upstream.port;
    asked = upstream.asked;
  });
  afterAll(() => upstream.close());

  const ask = async (
    name: string,
    type: "A" | "AAAA" | "TXT" = "A",
    transport: "udp" | "tcp" = "udp",
  ): Promise<Decoded> => {
    const message = dnsPacket.encode({
      id: 4242,
      type: "query",
      flags: dnsPacket.RECURSION_DESIRED,
      questions: [{ type, name, class: "IN" }],
    });
    const answer = await filterDnsMessage(deps(), message, transport);
    if (answer === null) throw new Error("no answer");
    return decodeAnswer(answer);
  };

  it("forwards an allowed name and admits its address before answering", async () => {
    const answer = await ask("API.example.test");
    expect(answer.id).toBe(4242);
    expect(answer.rcode).toBe("NOERROR");
    expect(answer.answers?.map((a) => ("data" in a ? a.data : null))).toEqual(["44.0.113.1"]);
    expect(admitted).toContainEqual({
      address: "44.0.113.1",
      family: 4,
      ports: null,
      ttl: 30,
      name: "api.example.test",
      chain: [],
    });
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
    expect(admitted).toContainEqual({
      address: "44.0.113.9",
      family: 4,
      ports: [443],
      ttl: 5,
      name: "y.ports.test",
      chain: [],
    });
  });

  it("admits an address reached through a CNAME only on the ports its allowlisted target is allowed on", async () => {
    // GIVEN *.wide.test (any port) and narrow.example.test:443; alias.wide.test → narrow.example.test
    const answer = await ask("alias.wide.test");
    expect(answer.answers?.map((a) => `${a.type} ${a.name}`)).toEqual([
      "CNAME alias.wide.test",
      "A narrow.example.test",
    ]);
    expect(admitted).toContainEqual({
      address: "44.0.113.50",
      family: 4,
      ports: [443],
      ttl: 60,
      name: "alias.wide.test",
      chain: ["narrow.example.test"],
    });
    // Control: a name under the same wildcard without such an alias keeps every port.
    await ask("plain.wide.test");
    expect(admitted).toContainEqual(expect.objectContaining({ address: "44.0.113.51", ports: null }));
  });

  it("refuses a CNAME chain whose allowlisted names share no port, admitting nothing", async () => {
    // x.ports.test is allowed on 443, its target other-port.example.test on 8080 only.
    const answer = await ask("x.ports.test");
    expect(answer.rcode).toBe("REFUSED");
    expect(admitted.map((a) => a.address)).not.toContain("44.0.113.52");
    expect(refused).toContain(
      "x.ports.test CNAME to other-port.example.test (allowed on port 8080 only) shares no port with x.ports.test",
    );
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
    expect(decodeAnswer(await filterDnsMessage(deps(), two, "udp")).rcode).toBe("REFUSED");
    const response = dnsPacket.encode({
      id: 8,
      type: "response",
      questions: [{ type: "A", name: "api.example.test" }],
    });
    expect(decodeAnswer(await filterDnsMessage(deps(), response, "udp")).rcode).toBe("REFUSED");
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

  it("answers SERVFAIL when the upstream does not answer", async () => {
    policy = { mode: "full", allow: [], deny: [], sni: false };
    const silent = createSocket("udp4");
    await new Promise<void>((resolve) => silent.bind(0, "127.0.0.1", resolve));
    const message = dnsPacket.encode({ id: 1, type: "query", questions: [{ type: "A", name: "api.example.test" }] });
    const failures: string[] = [];
    const answer = await filterDnsMessage(
      {
        ...deps(),
        upstream: { address: "127.0.0.1", port: silent.address().port },
        upstreamFailed: (error) => void failures.push(error.message),
      },
      message,
      "udp",
    );
    silent.close();
    expect(decodeAnswer(answer).rcode).toBe("SERVFAIL");
    expect(failures[0]).toContain("did not answer");
  }, 10_000);
});
