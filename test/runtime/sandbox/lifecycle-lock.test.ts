import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RuntimeContext } from "../../../runtime/core/context.js";
import { checkHealth } from "../../../runtime/sandbox/health.js";
import { readMetadata, removeMetadata, writeMetadata } from "../../../runtime/state/metadata-store.js";
import type { SandboxMetadata } from "../../../runtime/state/metadata.js";
import { withSandboxLock } from "../../../runtime/state/sandbox-lock.js";
import { sandboxMetadata } from "../../support/sandbox-metadata.js";
import { basicConfig, configContext } from "../../support/config-context.js";

/*
 * One lifecycle change of a sandbox at a time: the health monitor must not take a sandbox that
 * `down` is removing for one that crashed, and start it again.
 */
describe("a sandbox's lifecycle lock", () => {
  const dir = mkdtempSync(join(tmpdir(), "forage-lifecycle-lock-"));
  let context: RuntimeContext;
  let crashed: SandboxMetadata;
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  beforeAll(async () => {
    context = await configContext(dir, basicConfig);
    // Ready, with a container pid that no longer runs: what the monitor sees mid-down.
    crashed = sandboxMetadata({
      name: "going",
      template: "basic",
      slot: 251,
      hostPath: dir,
      pid: 2 ** 22 + 17,
      startedAt: "2026-11-26T00:00:00Z",
      network: { mode: "none", allow: [], deny: [], sni: false },
    });
  });

  it("makes the health monitor wait for a down in progress, then leave the removed sandbox alone", async () => {
    await writeMetadata(context.paths, crashed);
    let monitor: Promise<string | undefined> | undefined;
    await withSandboxLock(context, "going", async () => {
      // GIVEN a down holding the lock; WHEN the monitor checks the sandbox meanwhile
      // (without auto-restart: were the lock broken, this test would otherwise start a sandbox)
      monitor = checkHealth(context, crashed, false);
      await new Promise((resolve) => setTimeout(resolve, 300));
      // THEN it has not answered yet: it waits for the lock (it would report the dead container)
      expect(await Promise.race([monitor, new Promise((resolve) => setTimeout(() => resolve("waiting"), 0))])).toBe(
        "waiting",
      );
      await removeMetadata(context.paths, "going");
    });
    expect(await monitor).toBeUndefined();
    expect(await readMetadata(context.paths, "going")).toBeUndefined();
  });

  it("control: without a down in progress, the monitor reports the same sandbox's dead container", async () => {
    await writeMetadata(context.paths, crashed);
    expect(await checkHealth(context, crashed, false)).toBe("going: unhealthy (container is gone)");
    await removeMetadata(context.paths, "going");
  });
});
