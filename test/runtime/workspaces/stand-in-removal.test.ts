import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeMountPoints, removeStandIns, type StandIn } from "../../../runtime/workspaces/placeholders.js";
import type { Placeholder } from "../../../runtime/core/bind.js";
import { scratchDirs } from "../../support/scratch-dirs.js";
import { isRoot } from "../../support/tools.js";

const nobody = { uid: 65534, gid: 65534 };

/*
 * The last sandbox out removes the stand-ins up made in a workspace, as the user, in one rm and
 * one rmdir: only what still is exactly a stand-in goes, whatever the user put there stays.
 */
describe.skipIf(!isRoot())("removing a workspace's stand-ins", () => {
  const scratch = scratchDirs("forage-stand-ins-");

  /** A workspace of the user's with the stand-ins a bare one gets, made as up makes them. */
  const workspaceWithStandIns = async (): Promise<{ root: string; made: StandIn[] }> => {
    const dir = scratch();
    chmodSync(dir, 0o755);
    const root = join(dir, "ws");
    mkdirSync(root);
    chownSync(root, nobody.uid, nobody.gid);
    const { made } = await makeMountPoints(
      root,
      new Map<string, Placeholder>([
        [".git", { kind: "directory" }],
        [".git/commondir", { kind: "file", text: ".\n" }],
        [".git/hooks", { kind: "directory" }],
        [".envrc", { kind: "directory" }],
        [".vscode", { kind: "directory" }],
        ["notes.txt", { kind: "file", text: "" }],
      ]),
      nobody,
    );
    expect(made.map((standIn) => standIn.path)).toHaveLength(6);
    return { root, made };
  };

  it("removes every stand-in still as made, nested ones included", async () => {
    const { root, made } = await workspaceWithStandIns();
    await removeStandIns(root, made, nobody);
    expect(readdirSync(root)).toEqual([]);
  });

  it("keeps a directory the user put a file in, a file whose text changed, and what a link points at", async () => {
    const { root, made } = await workspaceWithStandIns();
    writeFileSync(join(root, ".vscode", "tasks.json"), "{}\n");
    writeFileSync(join(root, "notes.txt"), "mine\n");
    writeFileSync(join(root, ".git", "HEAD"), "ref: refs/heads/main\n");
    const elsewhere = join(root, "..", "elsewhere");
    mkdirSync(elsewhere);
    chownSync(elsewhere, nobody.uid, nobody.gid);
    // .envrc, once the stand-in's directory, now a link to an empty directory of the user's.
    await removeStandIns(root, [{ path: ".envrc", placeholder: { kind: "directory" } }], nobody);
    symlinkSync(elsewhere, join(root, ".envrc"));
    await removeStandIns(root, made, nobody);
    expect(readdirSync(root).sort()).toEqual([".envrc", ".git", ".vscode", "notes.txt"]);
    expect(readdirSync(join(root, ".git")).sort()).toEqual(["HEAD"]);
    expect(readdirSync(join(root, ".vscode"))).toEqual(["tasks.json"]);
    expect(existsSync(elsewhere)).toBe(true);
  });

  it("touches nothing in a folder that is not the user's", async () => {
    const { root, made } = await workspaceWithStandIns();
    chownSync(root, 0, 0);
    await removeStandIns(root, made, nobody);
    expect(readdirSync(root).sort()).toEqual([".envrc", ".git", ".vscode", "notes.txt"]);
  });
});
