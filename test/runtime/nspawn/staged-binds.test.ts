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

  it.skipIf(!isRoot())("binds several sources at once, each its own, and takes every staging mount down on release", async () => {
    const root = scratch();
    mkdirSync(join(root, "a"));
    mkdirSync(join(root, "b"));
    writeFileSync(join(root, "a/which"), "a\n");
    writeFileSync(join(root, "b/which"), "b\n");
    writeFileSync(join(root, "note"), "a file\n");
    for (const path of ["a", "b", "note"]) chownSync(join(root, path), 65534, 65534);
    const staged = await stageBinds([
      { source: join(root, "a"), target: "/a", readOnly: false, owners: [65534] },
      { source: "", target: "/absent", readOnly: true, placeholder: { kind: "directory" } },
      { source: join(root, "b"), target: "/b", readOnly: true, owners: [65534] },
      { source: join(root, "note"), target: "/note", readOnly: true, owners: [65534] },
    ]);
    const sources = staged.binds.map((bind) => bind.source);
    const mounted = (): string[] => sources.filter((source) => readFileSync("/proc/self/mountinfo", "utf8").includes(` ${source} `));
    expect(readFileSync(join(sources[0] ?? "", "which"), "utf8")).toBe("a\n");
    expect(readFileSync(join(sources[2] ?? "", "which"), "utf8")).toBe("b\n");
    expect(readFileSync(sources[3] ?? "", "utf8")).toBe("a file\n");
    expect(mounted()).toEqual([sources[0], sources[2], sources[3]]);
    await staged.release();
    expect(mounted()).toEqual([]);
  });
});
