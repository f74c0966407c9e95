import { getPublicSuffix } from "tldts";
import { describe, expect, it } from "vitest";
import {
  edgesOf,
  endsRule,
  isPublicSuffix,
  registrableDomain,
  rulesRoot,
  wildcardRefusal,
} from "../../../../generator/policy/network/public-suffixes.js";

/** Every rule the trie holds, read the way public-suffixes.ts reads it (labels from the right). */
function rulesInTrie(): string[] {
  const rules: string[] = [];
  const walk = (node: number, path: string[]): void => {
    for (const edge of edgesOf(node)) {
      const labels = [edge.label, ...path];
      if (endsRule(edge.child)) rules.push(labels.join("."));
      walk(edge.child, labels);
    }
  };
  walk(rulesRoot, []);
  return rules;
}

describe("the Public Suffix List as tldts carries it", () => {
  it("is read from tldts' trie exactly as tldts' own lookup reads it: every rule there is a public suffix to tldts", () => {
    const rules = rulesInTrie();
    // The list has some ten thousand rules (ICANN and private); a reading that finds few is broken.
    expect(rules.length).toBeGreaterThan(9000);
    expect(rules).toEqual(
      expect.arrayContaining([
        "com",
        "co.uk",
        "github.io",
        "s3.amazonaws.com",
        "blob.core.windows.net",
        "ngrok-free.app",
        "*.compute.amazonaws.com",
      ]),
    );
    const disagree = rules
      .map((rule) => rule.replaceAll("*", "x"))
      .filter((name) => getPublicSuffix(name, { allowPrivateDomains: true }) !== name);
    expect(disagree).toEqual([]);
  });

  it("refuses a wildcard at a suffix, and over one (amazonaws.com has s3.amazonaws.com below it)", () => {
    expect(wildcardRefusal("s3.amazonaws.com")).toBe(
      "s3.amazonaws.com is a public suffix (anyone registers names under it)",
    );
    expect(wildcardRefusal("x.compute.amazonaws.com")).toMatch(/is a public suffix/);
    expect(wildcardRefusal("ngrok-free.app")).toMatch(/is a public suffix/);
    expect(wildcardRefusal("blob.core.windows.net")).toMatch(/is a public suffix/);
    expect(wildcardRefusal("amazonaws.com")).toBe(
      "the Public Suffix List has suffixes below amazonaws.com (anyone's names are there)",
    );
    expect(wildcardRefusal("core.windows.net")).toMatch(/has suffixes below/);
    expect(wildcardRefusal("com")).toMatch(/is a public suffix/);
  });

  it("takes a wildcard at or below one owner's registrable domain", () => {
    for (const suffix of [
      "example.org",
      "cdn.example.org",
      "example.co.uk",
      "media.s3.amazonaws.com",
      "alice.github.io",
    ])
      expect(wildcardRefusal(suffix)).toBeNull();
    expect([isPublicSuffix("github.io"), isPublicSuffix("alice.github.io")]).toEqual([true, false]);
    expect(registrableDomain("www.alice.github.io")).toBe("alice.github.io");
    // A TLD the list does not know (test names) is a suffix of one label, by the list's default rule.
    expect(registrableDomain("a.b.example.test")).toBe("example.test");
  });
});
