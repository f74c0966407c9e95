import {
  chownSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openPinned } from "../../../runtime/core/pinned-path.js";
import { stageBinds } from "../../../runtime/mounts/staged-binds.js";
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

  it.skipIf(!isRoot())(
    "binds what it opened onto a root-only mount point, and refuses a source of another owner",
    async () => {
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
      await expect(
        stageBinds([{ source: join(root, "ws"), target: "/w", readOnly: false, owners: [1000] }]),
      ).rejects.toThrow("belongs to uid 65534, not to uid 1000");
    },
  );

  it.skipIf(!isRoot())(
    "binds several sources at once, each its own, and takes every staging mount down on release",
    async () => {
      const root = scratch();
      mkdirSync(join(root, "a"));
      mkdirSync(join(root, "b"));
      writeFileSync(join(root, "a/which"), "a\n");
      writeFileSync(join(root, "b/which"), "b\n");
      writeFileSync(join(root, "note"), "a file\n");
      for (const path of ["a", "b", "note"]) chownSync(join(root, path), 65534, 65534);
      const staged = await stageBinds([
        { source: join(root, "a"), target: "/a", readOnly: false, owners: [65534] },
        { source: join(root, "b"), target: "/b", readOnly: true, owners: [65534] },
        { source: join(root, "note"), target: "/note", readOnly: true, owners: [65534] },
      ]);
      const sources = staged.binds.map((bind) => bind.source);
      const mounted = (): string[] =>
        sources.filter((source) => readFileSync("/proc/self/mountinfo", "utf8").includes(` ${source} `));
      expect(readFileSync(join(sources[0] ?? "", "which"), "utf8")).toBe("a\n");
      expect(readFileSync(join(sources[1] ?? "", "which"), "utf8")).toBe("b\n");
      expect(readFileSync(sources[2] ?? "", "utf8")).toBe("a file\n");
      expect(mounted()).toEqual([sources[0], sources[1], sources[2]]);
      await staged.release();
      expect(mounted()).toEqual([]);
    },
  );

  it.skipIf(!isRoot())(
    "assembles a workspace with its pins in the staging mount, and detaches the whole tree on release",
    async () => {
      const root = scratch();
      const ws = join(root, "ws");
      mkdirSync(join(ws, "realgit"), { recursive: true });
      mkdirSync(join(ws, ".envrc"));
      writeFileSync(join(ws, "realgit/config"), "[core]\n");
      symlinkSync("realgit", join(ws, ".git"));
      chownSync(ws, 65534, 65534);
      const staged = await stageBinds([
        {
          source: ws,
          target: "/workspace",
          readOnly: false,
          owners: [65534],
          pins: [
            { kind: "self", path: ".envrc", readOnly: true },
            { kind: "self", path: ".git", readOnly: true, link: true },
            { kind: "self", path: "realgit", readOnly: false },
            { kind: "self", path: "realgit/config", readOnly: true },
            { kind: "stand-in", path: ".envrc", placeholder: { kind: "directory" } },
          ],
        },
      ]);
      const tree = staged.binds[0]?.source ?? "";
      const mounted = (): string[] =>
        readFileSync("/proc/self/mountinfo", "utf8")
          .split("\n")
          .filter((line) => line.includes(` ${tree}`));
      try {
        // One bind for nspawn (its --bind is recursive); the pins are mounts inside it.
        expect(staged.binds).toEqual([{ source: tree, target: "/workspace", readOnly: false }]);
        expect(mounted()).toHaveLength(6);
        expect(() => unlinkSync(join(tree, ".git"))).toThrow("EBUSY");
        expect(() => writeFileSync(join(tree, "realgit/config"), "x")).toThrow("EROFS");
        // The stand-in lies over the user's own .envrc directory, root's and empty.
        expect(lstatSync(join(tree, ".envrc")).uid).toBe(0);
      } finally {
        await staged.release();
      }
      expect(mounted()).toEqual([]);
      expect(readlinkSync(join(ws, ".git"))).toBe("realgit");
    },
  );
});
