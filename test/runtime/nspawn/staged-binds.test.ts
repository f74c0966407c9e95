import { chownSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openPinned } from "../../../runtime/core/pinned-path.js";
import { stageBinds } from "../../../runtime/nspawn/staged-binds.js";
import { scratchDirs } from "../../support/scratch-dirs.js";
import { isRoot } from "../../support/tools.js";

describe("user-controlled bind sources are opened once, without links, and bound by descriptor", () => {
  const scratch = scratchDirs("forage-pinned-");

  it("refuses a link as the last component and a link on the way, and accepts the real path", async () => {
    const root = scratch();
    mkdirSync(join(root, "real/inner"), { recursive: true });
    symlinkSync(join(root, "real"), join(root, "link"));
    await expect(openPinned(join(root, "link"))).rejects.toThrow("reached without symbolic links");
    await expect(openPinned(join(root, "link/inner"))).rejects.toThrow("reached without symbolic links");
    const pinned = await openPinned(join(root, "real/inner"));
    await pinned.handle.close();
    expect(pinned.kind).toBe("directory");
  });

  it.skipIf(!isRoot())("binds what it opened onto a root-only mount point, and refuses a source of another owner", async () => {
    const root = scratch();
    mkdirSync(join(root, "ws"));
    writeFileSync(join(root, "ws/file.txt"), "mine\n");
    chownSync(join(root, "ws"), 65534, 65534);
    const staged = await stageBinds([
      { source: join(root, "ws"), target: "/workspace", readOnly: false, owners: [65534] },
      { source: "/usr", target: "/usr", readOnly: true },
    ]);
    try {
      expect(staged.binds[0]?.source).not.toBe(join(root, "ws"));
      expect(readFileSync(join(staged.binds[0]?.source ?? "", "file.txt"), "utf8")).toBe("mine\n");
      expect(staged.binds[1]).toEqual({ source: "/usr", target: "/usr", readOnly: true });
    } finally {
      await staged.release();
    }
    await expect(stageBinds([{ source: join(root, "ws"), target: "/w", readOnly: false, owners: [1000] }])).rejects.toThrow("belongs to uid 65534, not to uid 1000");
  });
});
