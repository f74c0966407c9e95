import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RuntimeContext } from "../../../runtime/core/context.js";
import { SandboxError } from "../../../runtime/core/errors.js";
import { networkOperation } from "../../../runtime/sandbox/network-operations.js";
import { readMetadata, writeMetadata } from "../../../runtime/state/metadata-store.js";
import { sandboxMetadata } from "../../support/sandbox-metadata.js";
import { configContext } from "../../support/config-context.js";

/*
 * `forage-ctl network NAME MODE [--sni]` on a stopped sandbox (the policy is saved in its
 * metadata; a running one also gets it in force, which the integration tests cover): sni checks
 * names against the allowlist, so only restricted mode reads it. As a template's schema refuses
 * sni beside none and full, a change refuses --sni there, and a sandbox that leaves restricted
 * drops the flag instead of keeping one nothing reads.
 */
describe("forage-ctl network, sni and ask", () => {
  const dir = mkdtempSync(join(tmpdir(), "forage-network-operations-"));
  let context: RuntimeContext;
  const stopped = sandboxMetadata({ name: "net", template: "gated", slot: 250, hostPath: dir });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  beforeAll(async () => {
    context = await configContext(
      dir,
      "user: nobody\ntemplates:\n  gated:\n    network: { mode: restricted, allow: [api.example.com], sni: true }\n",
    );
  });
  beforeEach(() => writeMetadata(context.paths, stopped));

  it("drops sni when the sandbox switches to full or none, and keeps the allowlist for a return to restricted", async () => {
    for (const mode of ["full", "none"] as const) {
      await writeMetadata(context.paths, stopped);
      const view = await networkOperation(context, "net", { mode });
      expect(view.policy).toEqual({ mode, allow: ["api.example.com"], deny: [], sni: false });
      expect((await readMetadata(context.paths, "net"))?.network).toEqual(view.policy);
    }
  });

  it("refuses --sni beside full or none, asked at once or later, and changes nothing", async () => {
    await expect(networkOperation(context, "net", { mode: "full", sni: true })).rejects.toThrow(
      new SandboxError(
        'network net: --sni only applies to mode "restricted" (it checks names against the allowlist), and this sandbox\'s mode would be "full": switch it to restricted as well (forage-ctl network net restricted --sni), or leave out --sni',
        "usage",
      ),
    );
    expect((await readMetadata(context.paths, "net"))?.network).toBeNull();
    await networkOperation(context, "net", { mode: "none" });
    await expect(networkOperation(context, "net", { sni: true })).rejects.toThrow(
      /--sni only applies to mode "restricted".*would be "none"/,
    );
  });

  it("control: keeps sni within restricted, and takes it back with the mode", async () => {
    expect((await networkOperation(context, "net", { allow: ["files.example.com"] })).policy.sni).toBe(true);
    await networkOperation(context, "net", { mode: "full" });
    expect((await networkOperation(context, "net", { mode: "restricted", sni: true })).policy).toEqual({
      mode: "restricted",
      allow: ["api.example.com", "files.example.com"],
      deny: [],
      sni: true,
    });
  });

  it("turns ask on and off within restricted, refuses it beside full or none, and drops it with the mode", async () => {
    expect((await networkOperation(context, "net", { ask: true })).policy).toEqual({
      mode: "restricted",
      allow: ["api.example.com"],
      deny: [],
      sni: true,
      ask: true,
    });
    expect((await readMetadata(context.paths, "net"))?.network?.ask).toBe(true);
    await expect(networkOperation(context, "net", { mode: "full", ask: true })).rejects.toThrow(
      'network net: --ask only applies to mode "restricted" (it asks about names not in the allowlist), and this sandbox\'s mode would be "full": switch it to restricted as well (forage-ctl network net restricted --ask), or leave out --ask',
    );
    expect((await networkOperation(context, "net", { mode: "none" })).policy).toEqual({
      mode: "none",
      allow: ["api.example.com"],
      deny: [],
      sni: false,
    });
    await networkOperation(context, "net", { mode: "restricted", ask: true });
    expect((await networkOperation(context, "net", { ask: false })).policy.ask).toBeUndefined();
  });
});
