import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { suggestCommand } from "../../cli/commands/network-suggest.js";
import type { NetworkView } from "../../runtime/sandbox/network-operations.js";

/*
 * `network NAME --suggest --write` on real config files: the edit never leaves the template with
 * fewer allow entries than it had. GIVEN a template that inherits its parent's allow list beside
 * a network of its own (YAML: merged key by key; TypeScript: a spread), WHEN a learned name is
 * written, THEN the edit is refused and the file is byte for byte as it was; a template with its
 * own list gets the name appended.
 */
const dir = mkdtempSync(join(tmpdir(), "forage-suggest-write-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the network command shows of a sandbox of `template` that resolved `learned` (the fields --suggest reads). */
function viewOf(template: string, templateAllow: string[], learned: string[]): NetworkView {
  const policy = { mode: "restricted" as const, allow: templateAllow, deny: [], sni: false };
  return {
    name: "demo",
    template,
    policy,
    templatePolicy: policy,
    learned: learned.map((name) => ({ name, addresses: [] })),
    guard: null,
    deniedNames: [],
  } as unknown as NetworkView;
}

const write = (file: string, view: NetworkView): Promise<void> =>
  suggestCommand(view, { write: true, yes: true, json: true, config: file });

describe("network --suggest --write and inherited allow lists", () => {
  it("refuses a YAML template whose own network has no allow list (it inherits its parent's), leaving the file as it was", async () => {
    const file = join(dir, "inherits.yaml");
    const text =
      "user: alice\ntemplates:\n  base:\n    network: { mode: restricted, allow: [a.example.org] }\n  child:\n    extends: base\n    network: { mode: restricted, sni: true }\n";
    writeFileSync(file, text);
    await expect(write(file, viewOf("child", ["a.example.org"], ["new.example.org"]))).rejects.toThrow(/inherits/);
    expect(readFileSync(file, "utf8")).toBe(text);
  });

  it("refuses a TypeScript template whose network spreads in a list, leaving the file as it was", async () => {
    const file = join(dir, "spread.config.ts");
    const text = `const shared = { mode: "restricted" as const, allow: ["a.example.org"] };\nexport default { user: "alice", templates: { child: { network: { ...shared, mode: "restricted" } } } };\n`;
    writeFileSync(file, text);
    await expect(write(file, viewOf("child", ["a.example.org"], ["new.example.org"]))).rejects.toThrow(
      /spread|without a\.example\.org/,
    );
    expect(readFileSync(file, "utf8")).toBe(text);
  });

  it("appends to a template's own list, keeping what it allowed", async () => {
    const file = join(dir, "own.yaml");
    writeFileSync(
      file,
      "user: alice\ntemplates:\n  base:\n    network: { mode: restricted, allow: [a.example.org] }\n  child:\n    extends: base\n    network: { mode: restricted, allow: [b.example.org] }\n",
    );
    await write(file, viewOf("child", ["b.example.org"], ["new.example.org"]));
    expect(readFileSync(file, "utf8")).toContain(`allow: [b.example.org, "new.example.org"]`);
  });
});
