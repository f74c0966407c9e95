import { describe, expect, it } from "vitest";
import { quotaPlan } from "../../../runtime/workspaces/disk-quota.js";
import { toolsAvailable } from "../../support/tools.js";

const tools = toolsAvailable("findmnt");

describe.skipIf(!tools.run)("quotaPlan", () => {
  it("refuses a directory that is not on btrfs as a config error, naming the filesystem and both fixes", async () => {
    // /proc is never btrfs; the escape-disk integration test covers btrfs, with and without quotas.
    const error = await quotaPlan("/proc/self", "10G").catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "config" });
    expect((error as Error).message).toMatch(
      /\/proc\/self is on proc, not btrfs .*put the state directory \(FORAGE_STATE_DIR\) on btrfs, or remove workspace\.maxSize/,
    );
  });
});
