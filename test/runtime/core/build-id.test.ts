import { chmodSync, realpathSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { buildId } from "../../../runtime/core/build-id.js";
import { packageRoot } from "../../../runtime/core/package-root.js";

describe("the build a forage-ctl runs", () => {
  it("names the version, and changes when its code is written again though the modification time is kept (Nix, npm tarballs)", () => {
    const before = buildId();
    expect(before).toMatch(/^\d+\.\d+\.\d+\+\d+@\/.+$/);
    expect(before.endsWith(`@${realpathSync(packageRoot())}`)).toBe(true);
    expect(buildId()).toBe(before);
    // A chmod to the same mode changes the change time only, as installing the file again would.
    const file = fileURLToPath(new URL("../../../runtime/core/build-id.ts", import.meta.url));
    const { mode, ctimeMs } = statSync(file);
    const deadline = Date.now() + 50;
    while (Date.now() < deadline); // a later ctime, in whole milliseconds
    chmodSync(file, mode & 0o7777);
    expect(statSync(file).ctimeMs).toBeGreaterThan(ctimeMs);
    expect(buildId()).not.toBe(before);
  });
});
