import dnsPacket, { type Answer } from "dns-packet";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AnswerCache } from "../../../../runtime/gates/network/dns/answer-cache.js";
import {
  filterDnsMessage,
  type DnsFilterDeps,
  type ResolvedAddress,
} from "../../../../runtime/gates/network/dns/dns-filter.js";
import { policyRules } from "../../../../generator/policy/network/policy-rules.js";
import type { NetworkPolicy } from "../../../../generator/policy/network/policy-schema.js";
import { decodeAnswer, startZoneUpstream, type Decoded } from "../../../support/zone-upstream.js";

/*
 * The DNS filter with a sandbox's answer cache, against a real upstream on loopback that logs
 * every name it is asked: what is answered from the cache never reaches it, and what is answered
 * from it is still judged and admitted as an answer from upstream would be.
 */
const zone: Record<string, Answer[]> = {
  "api.example.test": [{ type: "A", name: "api.example.test", ttl: 30, data: "44.0.113.1" }],
  "www.example.test": [
    { type: "CNAME", name: "www.example.test", ttl: 60, data: "edge.cdn.test" },
    { type: "A", name: "edge.cdn.test", ttl: 20, data: "44.0.113.2" },
  ],
  "zero.example.test": [{ type: "A", name: "zero.example.test", ttl: 0, data: "44.0.113.3" }],
  "txt.example.test": [{ type: "TXT", name: "txt.example.test", ttl: 60, data: "hello" }],
  "many.example.test": Array.from({ length: 40 }, (_, i) => ({
    type: "A" as const,
    name: "many.example.test",
    ttl: 60,
    data: `44.0.114.${i + 1}`,
  })),
};

describe("the DNS filter's answer cache", () => {
  let upstream: Awaited<ReturnType<typeof startZoneUpstream>>;
  let clock = 1_000_000;
  let cache: AnswerCache;
  let admitted: ResolvedAddress[] = [];
  let policy: NetworkPolicy;
  const deps = (): DnsFilterDeps => ({
    policy: () => policyRules(policy),
    upstream: { address: "127.0.0.1", port: upstream.port },
    admit: async (addresses) => void admitted.push(...addresses),
    refused: () => undefined,
    refuseAddress: () => null,
    cache,
  });
  const ask = async (name: string, type: "A" | "TXT" = "A"): Promise<Decoded> =>
    decodeAnswer(
      await filterDnsMessage(
        deps(),
        dnsPacket.encode({ id: 7, type: "query", flags: dnsPacket.RECURSION_DESIRED, questions: [{ type, name }] }),
        "udp",
      ),
    );
  /** How many times the upstream was asked for `name`. */
  const forwarded = (name: string): number => upstream.asked.filter((asked) => asked === name).length;
  const ttls = (answer: Decoded): number[] =>
    (answer.answers ?? []).map((record) => ("ttl" in record ? (record.ttl ?? -1) : -1));

  beforeAll(async () => {
    upstream = await startZoneUpstream(zone);
  });
  afterAll(() => upstream.close());
  beforeEach(() => {
    upstream.asked.length = 0;
    admitted = [];
    cache = new AnswerCache({ maxTtlSeconds: 86_400, now: () => clock });
    policy = { mode: "restricted", allow: ["*.example.test"], deny: [], sni: false };
  });

  it("answers a name asked again from the cache, its TTL counted down, and admits its address again", async () => {
    expect(ttls(await ask("api.example.test"))).toEqual([30]);
    clock += 12_400;
    const again = await ask("API.Example.test");
    expect(forwarded("api.example.test")).toBe(1);
    expect(again.questions?.[0]?.name).toBe("API.Example.test"); // the question as the sandbox asked it
    expect(again.answers?.map((record) => ("data" in record ? record.data : null))).toEqual(["44.0.113.1"]);
    expect(ttls(again)).toEqual([18]);
    // The element's life is worked out from what the client may still cache.
    expect(admitted.map((address) => [address.address, address.ttl])).toEqual([
      ["44.0.113.1", 30],
      ["44.0.113.1", 18],
    ]);
  });

  it("keeps a chain for its smallest TTL, then asks upstream again", async () => {
    await ask("www.example.test");
    clock += 19_000;
    expect(ttls(await ask("www.example.test"))).toEqual([41, 1]);
    expect(forwarded("www.example.test")).toBe(1);
    clock += 1_000;
    expect(ttls(await ask("www.example.test"))).toEqual([60, 20]);
    expect(forwarded("www.example.test")).toBe(2);
  });

  it("judges a cached answer under the policy in force: a name no longer allowed is refused", async () => {
    await ask("api.example.test");
    policy = { ...policy, allow: ["www.example.test"] };
    expect((await ask("api.example.test")).rcode).toBe("NXDOMAIN");
    await ask("www.example.test");
    policy = { ...policy, allow: ["*.example.test"], deny: ["edge.cdn.test"] };
    expect((await ask("www.example.test")).rcode).toBe("REFUSED"); // its chain leads to a name now denied
    expect([forwarded("api.example.test"), forwarded("www.example.test")]).toEqual([1, 1]);
    expect(admitted.map((address) => address.address)).toEqual(["44.0.113.1", "44.0.113.2"]);
  });

  it("keeps no answer with a TTL of 0, no name that did not resolve, no other record type, and no long answer", async () => {
    for (const name of ["zero.example.test", "missing.example.test", "many.example.test"]) {
      await ask(name);
      await ask(name);
      expect(forwarded(name)).toBe(2);
    }
    policy = { ...policy, mode: "full" };
    await ask("txt.example.test", "TXT");
    await ask("txt.example.test", "TXT");
    expect(forwarded("txt.example.test")).toBe(2);
    expect(cache.size).toBe(0);
  });

  it("holds at most maxEntries answers, the oldest stored going first", async () => {
    cache = new AnswerCache({ maxTtlSeconds: 86_400, maxEntries: 1, now: () => clock });
    await ask("api.example.test");
    await ask("www.example.test");
    await ask("www.example.test");
    await ask("api.example.test");
    expect([forwarded("www.example.test"), forwarded("api.example.test")]).toEqual([1, 2]);
    expect(cache.size).toBe(1);
  });

  it("keeps no answer longer than maxTtlSeconds", async () => {
    cache = new AnswerCache({ maxTtlSeconds: 5, now: () => clock });
    await ask("api.example.test");
    clock += 5_000;
    await ask("api.example.test");
    expect(forwarded("api.example.test")).toBe(2);
  });
});
