import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RuntimeContext } from "../../../runtime/core/context.js";
import { findOrphans } from "../../../runtime/sandbox/gc.js";
import { writeMetadata } from "../../../runtime/state/metadata-store.js";
import { sandboxMetadata } from "../../support/sandbox-metadata.js";
import { basicConfig, configContext } from "../../support/config-context.js";

/*
 * gc beside an up (or the pool keeper) that is making a sandbox: its container runs, and
 * systemd-nspawn's lock file sits beside its root, before the metadata records the container's
 * pid. The pool's integration test caught gc calling that lock file an orphan.
 */
describe("gc and a sandbox being made", () => {
  const dir = mkdtempSync(join(tmpdir(), "forage-gc-made-"));
  let context: RuntimeContext;
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  beforeAll(async () => {
    context = await configContext(dir, basicConfig);
    mkdirSync(context.paths.rootsDir, { recursive: true });
  });

  /** A sandbox in phase "creating" by `creatorPid`, with its root and nspawn's lock file made. */
  const beingMade = async (name: string, creatorPid: number): Promise<void> => {
    await writeMetadata(
      context.paths,
      sandboxMetadata({ name, template: "basic", slot: 250, hostPath: dir, phase: "creating", creatorPid }),
    );
    mkdirSync(join(context.paths.rootsDir, name));
    writeFileSync(join(context.paths.rootsDir, `.#${name}.lck`), "");
  };

  it("finds nothing of a sandbox whose up is alive, its lock file included", async () => {
    await beingMade("making", process.pid);
    expect((await findOrphans(context)).filter((orphan) => orphan.name === "making")).toEqual([]);
  });

  it("control: the same with its up dead is a half-created sandbox and a stale lock file", async () => {
    await beingMade("died", 2 ** 22 + 19);
    expect(
      (await findOrphans(context)).filter((orphan) => orphan.name === "died").map((orphan) => orphan.kind),
    ).toEqual(["half-created sandbox", "lock file"]);
  });
});
