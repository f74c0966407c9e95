import { describe, expect, it } from "vitest";
import { suggestAllowlist, type SeenName } from "../../../../generator/policy/network/allow-suggestion.js";
import { registrableDomain } from "../../../../generator/policy/network/public-suffixes.js";

const learned = (...names: string[]): SeenName[] => names.map((name) => ({ name, source: "learned" }));
const entries = (seen: SeenName[], allow: string[] = [], denied: string[] = []): string[] =>
  suggestAllowlist(seen, allow, denied).add.map((each) => each.entry);

describe("the allowlist suggested from the names a sandbox used", () => {
  it("keeps names exact when fewer than three were seen below a common suffix", () => {
    expect(entries(learned("api.example.org", "files.example.org"))).toEqual(["api.example.org", "files.example.org"]);
  });

  it("groups three distinct names below one suffix into *.suffix, and lists which names it covers", () => {
    const suggestion = suggestAllowlist(learned("a.cdn.example.org", "b.cdn.example.org", "c.cdn.example.org"), []);
    expect(suggestion.add).toEqual([
      {
        entry: "*.cdn.example.org",
        names: ["a.cdn.example.org", "b.cdn.example.org", "c.cdn.example.org"],
        sources: ["learned"],
      },
    ]);
  });

  it("chooses the deepest suffix, and does not count grouped names again for a shallower one", () => {
    expect(
      entries(
        learned("a.cdn.example.org", "b.cdn.example.org", "c.cdn.example.org", "api.example.org", "www.example.org"),
      ),
    ).toEqual(["api.example.org", "*.cdn.example.org", "www.example.org"]);
  });

  it("groups names at different depths below the registrable domain into *.domain", () => {
    expect(entries(learned("api.example.org", "x.files.example.org", "y.mirror.example.org"))).toEqual([
      "*.example.org",
    ]);
  });

  it("keeps the suffix itself as an exact entry when it was seen (*.x does not match x)", () => {
    expect(entries(learned("example.org", "a.example.org", "b.example.org", "c.example.org"))).toEqual([
      "*.example.org",
      "example.org",
    ]);
  });

  it("never groups across registrable domains into a TLD", () => {
    expect(entries(learned("one.example", "two.example", "three.example"))).toEqual([
      "one.example",
      "three.example",
      "two.example",
    ]);
    expect(entries(learned("a.one.example", "b.two.example", "c.three.example"))).toEqual([
      "a.one.example",
      "b.two.example",
      "c.three.example",
    ]);
  });

  it("never groups into a public suffix of the Public Suffix List's ICANN or private section", () => {
    expect(registrableDomain("shop.example.co.uk")).toBe("example.co.uk");
    expect(registrableDomain("x.bucket.s3.amazonaws.com")).toBe("bucket.s3.amazonaws.com");
    expect(entries(learned("one.co.uk", "two.co.uk", "three.co.uk"))).toEqual([
      "one.co.uk",
      "three.co.uk",
      "two.co.uk",
    ]);
    expect(entries(learned("alice.github.io", "bob.github.io", "carol.github.io"))).toEqual([
      "alice.github.io",
      "bob.github.io",
      "carol.github.io",
    ]);
    expect(entries(learned("a.shop.example.co.uk", "b.shop.example.co.uk", "c.shop.example.co.uk"))).toEqual([
      "*.shop.example.co.uk",
    ]);
  });

  /** Five names below each suffix, at two depths: plenty for a group, were one allowed. */
  const crowd = (suffix: string): string[] => ["a", "b", "c", "d.x", "e.y"].map((label) => `${label}.${suffix}`);

  it.each(["amazonaws.com", "s3.amazonaws.com", "blob.core.windows.net", "ngrok-free.app"])(
    "never suggests *.%s, whatever was seen below it (anyone's names are there)",
    (suffix) => {
      const suggested = entries(learned(...crowd(suffix)));
      expect(suggested.filter((entry) => entry.startsWith("*."))).not.toContain(`*.${suffix}`);
      // Nor any wildcard at or over a suffix on the way: each is one owner's registrable domain or below it.
      for (const entry of suggested.filter((each) => each.startsWith("*.")))
        expect(registrableDomain(entry.slice(2)).split(".").length).toBeLessThanOrEqual(entry.split(".").length - 1);
      expect(
        suggested.some((entry) =>
          [
            "*.amazonaws.com",
            "*.s3.amazonaws.com",
            "*.blob.core.windows.net",
            "*.core.windows.net",
            "*.windows.net",
            "*.ngrok-free.app",
          ].includes(entry),
        ),
      ).toBe(false);
    },
  );

  it("keeps the names of the issue's learn mode run exact: S3 buckets, Azure blobs, AWS endpoints, ngrok tunnels", () => {
    const seen = learned(
      "logs.s3.amazonaws.com",
      "assets.s3.amazonaws.com",
      "backup.s3.amazonaws.com",
      "sts.us-east-1.amazonaws.com",
      "ec2.us-east-1.amazonaws.com",
      "ssm.us-east-1.amazonaws.com",
      "one.blob.core.windows.net",
      "two.blob.core.windows.net",
      "three.blob.core.windows.net",
      "abc.ngrok-free.app",
      "def.ngrok-free.app",
      "ghi.ngrok-free.app",
    );
    expect(entries(seen).filter((entry) => entry.startsWith("*."))).toEqual([]);
  });

  it("groups below one owner's name inside a private suffix: the names of one bucket, one site", () => {
    expect(
      entries(learned("a.media.s3.amazonaws.com", "b.media.s3.amazonaws.com", "c.media.s3.amazonaws.com")),
    ).toEqual(["*.media.s3.amazonaws.com"]);
  });

  it("never suggests a wildcard that covers a name the user denied, nor the denied name itself", () => {
    const seen = learned(
      "a.cdn.example.org",
      "b.cdn.example.org",
      "c.cdn.example.org",
      "api.example.org",
      "www.example.org",
    );
    expect(entries(seen)).toEqual(["api.example.org", "*.cdn.example.org", "www.example.org"]);
    // Denied when asked: b.cdn.example.org. Its wildcard, and any over it, is out; the other names stay exact.
    const suggestion = suggestAllowlist(
      [...seen, ...learned("x.example.org", "y.example.org")],
      [],
      ["b.cdn.example.org"],
    );
    expect(suggestion.add.map((each) => each.entry)).toEqual([
      "a.cdn.example.org",
      "api.example.org",
      "c.cdn.example.org",
      "www.example.org",
      "x.example.org",
      "y.example.org",
    ]);
    expect(suggestion.skipped).toEqual([{ name: "b.cdn.example.org", reason: "denied (b.cdn.example.org)" }]);
    // A denied wildcard (the deny list) below, at or over the suffix rules it out too.
    expect(entries(seen, [], ["*.x.cdn.example.org"])).not.toContain("*.cdn.example.org");
    expect(entries(seen, [], ["*.cdn.example.org"])).toEqual(["api.example.org", "www.example.org"]);
    expect(entries(seen, [], ["*.example.org"])).toEqual([]);
  });

  it("leaves out names the template's allow list already covers, saying by which entry", () => {
    const suggestion = suggestAllowlist(learned("api.example.org", "x.cdn.example.net", "new.example.com"), [
      "api.example.org:443",
      "*.cdn.example.net",
    ]);
    expect(suggestion.add.map((each) => each.entry)).toEqual(["new.example.com"]);
    expect(suggestion.covered).toEqual([
      { name: "api.example.org", by: "api.example.org:443" },
      { name: "x.cdn.example.net", by: "*.cdn.example.net" },
    ]);
  });

  it("skips what no allow entry can hold: addresses, reverse lookups, single labels", () => {
    const suggestion = suggestAllowlist(
      learned("192.0.2.1", "1.2.0.192.in-addr.arpa", "printer", "under_score.example.org"),
      [],
    );
    expect(suggestion.add).toEqual([]);
    expect(suggestion.skipped.map((each) => each.name)).toEqual([
      "192.0.2.1",
      "1.2.0.192.in-addr.arpa",
      "printer",
      "under_score.example.org",
    ]);
  });

  it("keeps a name approved on one port as name:port, never in a wildcard, covered only by an entry that allows that port", () => {
    const approved = (name: string, source: "once" | "always" = "once"): SeenName => ({ name, source, port: 443 });
    const suggestion = suggestAllowlist(
      [
        approved("a.cdn.example.org"),
        approved("b.cdn.example.org"),
        approved("c.cdn.example.org", "always"),
        approved("api.example.net"),
        approved("ssh.example.net"),
      ],
      ["api.example.net:443", "ssh.example.net:22"],
    );
    expect(suggestion.add.map((each) => [each.entry, each.sources])).toEqual([
      ["a.cdn.example.org:443", ["once"]],
      ["b.cdn.example.org:443", ["once"]],
      ["c.cdn.example.org:443", ["always"]],
      ["ssh.example.net:443", ["once"]],
    ]);
    expect(suggestion.covered).toEqual([{ name: "api.example.net", by: "api.example.net:443" }]);
  });

  it("merges a name seen from several sources (learned, and approved in ask mode), lower-cased, trailing dot dropped", () => {
    const suggestion = suggestAllowlist(
      [
        { name: "API.example.org.", source: "learned" },
        { name: "api.example.org", source: "always" },
        { name: "api.example.org", source: "once" },
      ],
      [],
    );
    expect(suggestion.add).toEqual([
      { entry: "api.example.org", names: ["api.example.org"], sources: ["always", "learned", "once"] },
    ]);
  });
});
