import { describe, expect, it } from "vitest";
import { registrableDomain, suggestAllowlist, type SeenName } from "../../../../generator/policy/network/allow-suggestion.js";

const learned = (...names: string[]): SeenName[] => names.map((name) => ({ name, source: "learned" }));
const entries = (seen: SeenName[], allow: string[] = []): string[] => suggestAllowlist(seen, allow).add.map((each) => each.entry);

describe("the allowlist suggested from the names a sandbox used", () => {
  it("keeps names exact when fewer than three were seen below a common suffix", () => {
    expect(entries(learned("api.example.org", "files.example.org"))).toEqual(["api.example.org", "files.example.org"]);
  });

  it("groups three distinct names below one suffix into *.suffix, and lists which names it covers", () => {
    const suggestion = suggestAllowlist(learned("a.cdn.example.org", "b.cdn.example.org", "c.cdn.example.org"), []);
    expect(suggestion.add).toEqual([{ entry: "*.cdn.example.org", names: ["a.cdn.example.org", "b.cdn.example.org", "c.cdn.example.org"], sources: ["learned"] }]);
  });

  it("chooses the deepest suffix, and does not count grouped names again for a shallower one", () => {
    expect(entries(learned("a.cdn.example.org", "b.cdn.example.org", "c.cdn.example.org", "api.example.org", "www.example.org"))).toEqual(["api.example.org", "*.cdn.example.org", "www.example.org"]);
  });

  it("groups names at different depths below the registrable domain into *.domain", () => {
    expect(entries(learned("api.example.org", "x.files.example.org", "y.mirror.example.org"))).toEqual(["*.example.org"]);
  });

  it("keeps the suffix itself as an exact entry when it was seen (*.x does not match x)", () => {
    expect(entries(learned("example.org", "a.example.org", "b.example.org", "c.example.org"))).toEqual(["*.example.org", "example.org"]);
  });

  it("never groups across registrable domains into a TLD", () => {
    expect(entries(learned("one.example", "two.example", "three.example"))).toEqual(["one.example", "three.example", "two.example"]);
    expect(entries(learned("a.one.example", "b.two.example", "c.three.example"))).toEqual(["a.one.example", "b.two.example", "c.three.example"]);
  });

  it("never groups into a public suffix on its small built-in list", () => {
    expect(registrableDomain("shop.example.co.uk")).toBe("example.co.uk");
    expect(entries(learned("one.co.uk", "two.co.uk", "three.co.uk"))).toEqual(["one.co.uk", "three.co.uk", "two.co.uk"]);
    expect(entries(learned("alice.github.io", "bob.github.io", "carol.github.io"))).toEqual(["alice.github.io", "bob.github.io", "carol.github.io"]);
    expect(entries(learned("a.shop.example.co.uk", "b.shop.example.co.uk", "c.shop.example.co.uk"))).toEqual(["*.shop.example.co.uk"]);
  });

  it("leaves out names the template's allow list already covers, saying by which entry", () => {
    const suggestion = suggestAllowlist(learned("api.example.org", "x.cdn.example.net", "new.example.com"), ["api.example.org:443", "*.cdn.example.net"]);
    expect(suggestion.add.map((each) => each.entry)).toEqual(["new.example.com"]);
    expect(suggestion.covered).toEqual([
      { name: "api.example.org", by: "api.example.org:443" },
      { name: "x.cdn.example.net", by: "*.cdn.example.net" },
    ]);
  });

  it("skips what no allow entry can hold: addresses, reverse lookups, single labels", () => {
    const suggestion = suggestAllowlist(learned("192.0.2.1", "1.2.0.192.in-addr.arpa", "printer", "under_score.example.org"), []);
    expect(suggestion.add).toEqual([]);
    expect(suggestion.skipped.map((each) => each.name)).toEqual(["192.0.2.1", "1.2.0.192.in-addr.arpa", "printer", "under_score.example.org"]);
  });

  it("keeps a name approved on one port as name:port, never in a wildcard, covered only by an entry that allows that port", () => {
    const approved = (name: string, source: "once" | "always" = "once"): SeenName => ({ name, source, port: 443 });
    const suggestion = suggestAllowlist(
      [approved("a.cdn.example.org"), approved("b.cdn.example.org"), approved("c.cdn.example.org", "always"), approved("api.example.net"), approved("ssh.example.net")],
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
    expect(suggestion.add).toEqual([{ entry: "api.example.org", names: ["api.example.org"], sources: ["always", "learned", "once"] }]);
  });
});
