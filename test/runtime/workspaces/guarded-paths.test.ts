import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scratchDirs } from "../../support/scratch-dirs.js";
import { describe, expect, it } from "vitest";
import { workspaceGuards } from "../../../runtime/workspaces/guarded-paths.js";

describe("guarded paths of a workspace", () => {
  const workspace = scratchDirs("forage-guards-");

  it("guards a .git directory's internals, a .git pointer file, the repository's own list, and not what a template lifts", async () => {
    const root = workspace();
    mkdirSync(join(root, ".git"));
    mkdirSync(join(root, ".forage"));
    writeFileSync(join(root, ".forage/protected"), "deploy.sh\n../escape\n");
    const paths = (await workspaceGuards(root, [".envrc"])).map((guard) => guard.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        ".git/commondir",
        ".git/config.worktree",
        ".git/info",
        ".git/worktrees",
        ".git/objects/info/alternates",
        "deploy.sh",
        ".forage",
      ]),
    );
    expect(paths).not.toContain(".envrc");
    expect(paths).not.toContain("../escape");
    const worktree = workspace();
    writeFileSync(join(worktree, ".git"), "gitdir: /repo/.git/worktrees/x\n");
    const pointers = await workspaceGuards(worktree, []);
    expect(pointers).toContainEqual({ path: ".git", placeholder: null });
    expect(pointers.map((guard) => guard.path)).not.toContain(".git/commondir");
  });

  it("guards a .git's internals where a link named .git leads, as the host's git sees it", async () => {
    const root = workspace();
    mkdirSync(join(root, "realgit"));
    symlinkSync("realgit", join(root, ".git"));
    expect((await workspaceGuards(root, [])).map((guard) => guard.path)).toEqual(
      expect.arrayContaining([".git/commondir", ".git/info", ".git/config", ".git/hooks"]),
    );
  });

  it("gives the stand-in for .git/commondir a '.' (git dies on an empty commondir; '.' is the directory itself)", async () => {
    const root = workspace();
    mkdirSync(join(root, ".git"));
    const guards = await workspaceGuards(root, []);
    expect(guards.find((guard) => guard.path === ".git/commondir")?.placeholder).toEqual({ kind: "file", text: ".\n" });
  });

  it("gives a missing listed path an empty directory (invisible to git and jj), and guards a jj store's type and git target", async () => {
    const root = workspace();
    mkdirSync(join(root, ".jj/repo"), { recursive: true });
    const guards = await workspaceGuards(root, []);
    expect(guards.find((guard) => guard.path === "forage.json")?.placeholder).toEqual({ kind: "directory" });
    expect(guards).toContainEqual({ path: ".jj/repo/store/git_target", placeholder: null });
    expect(guards).toContainEqual({ path: ".jj/repo/store/type", placeholder: null });
  });
});
