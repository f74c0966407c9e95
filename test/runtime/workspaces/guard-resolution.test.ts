import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolveGuard } from "../../../runtime/workspaces/guard-resolution.js";

describe("where a guarded path leads, as the host's tools resolve it", () => {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  /** A scratch directory with `ws` (the workspace) and `other` (a second workspace) in it, real paths. */
  const scratch = (): { ws: string; other: string; outside: string } => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "forage-resolve-")));
    made.push(dir);
    for (const sub of ["ws", "other", "outside"]) mkdirSync(join(dir, sub));
    return { ws: join(dir, "ws"), other: join(dir, "other"), outside: join(dir, "outside") };
  };
  const dir = { kind: "directory" } as const;
  const file = { kind: "file", text: "" } as const;

  it("finds a present path, and for an absent one the first missing component (a directory when the guard lies below it)", async () => {
    const { ws } = scratch();
    writeFileSync(join(ws, ".envrc"), "use nix\n");
    expect(await resolveGuard([ws], 0, { path: ".envrc", placeholder: file })).toEqual([
      { root: 0, path: ".envrc", state: "present" },
    ]);
    expect(await resolveGuard([ws], 0, { path: ".git/commondir", placeholder: file })).toEqual([
      { root: 0, path: ".git", state: "absent", placeholder: dir },
    ]);
    // An absent path with no safe stand-in is nothing to hold.
    expect(await resolveGuard([ws], 0, { path: ".jj/repo/store/type", placeholder: null })).toEqual([]);
  });

  it("holds a link at the guarded name and what it leads to inside the workspace, present or absent", async () => {
    const { ws } = scratch();
    mkdirSync(join(ws, "realgit"));
    writeFileSync(join(ws, "realgit/config"), "[core]\n");
    symlinkSync("realgit", join(ws, ".git"));
    symlinkSync("envrc.real", join(ws, ".envrc"));
    expect(await resolveGuard([ws], 0, { path: ".git/config", placeholder: dir })).toEqual([
      { root: 0, path: ".git", state: "link" },
      { root: 0, path: "realgit/config", state: "present" },
    ]);
    expect(await resolveGuard([ws], 0, { path: ".git/hooks", placeholder: dir })).toEqual([
      { root: 0, path: ".git", state: "link" },
      { root: 0, path: "realgit/hooks", state: "absent", placeholder: dir },
    ]);
    expect(await resolveGuard([ws], 0, { path: ".envrc", placeholder: dir })).toEqual([
      { root: 0, path: ".envrc", state: "link" },
      { root: 0, path: "envrc.real", state: "absent", placeholder: dir },
    ]);
  });

  it("holds only the link when it leads out of every workspace, absolute or relative, dangling or not", async () => {
    const { ws, outside } = scratch();
    symlinkSync("../outside", join(ws, ".vscode"));
    symlinkSync(join(outside, "x.git"), join(ws, ".git"));
    symlinkSync("../gitdirs/missing", join(ws, "forage.yaml"));
    for (const path of [".vscode", ".git/config", "forage.yaml"]) {
      expect(await resolveGuard([ws], 0, { path, placeholder: dir })).toEqual([
        { root: 0, path: path.split("/")[0], state: "link" },
      ]);
    }
  });

  it("follows a chain of links, out of the workspace and back in (an absolute link to the host path counts as inside)", async () => {
    const { ws, outside } = scratch();
    mkdirSync(join(ws, "deep/real"), { recursive: true });
    symlinkSync(join(ws, "deep"), join(outside, "hop"));
    symlinkSync(join(outside, "hop/real"), join(ws, ".forage"));
    expect(await resolveGuard([ws], 0, { path: ".forage", placeholder: dir })).toEqual([
      { root: 0, path: ".forage", state: "link" },
      { root: 0, path: "deep/real", state: "present" },
    ]);
  });

  it("holds what a link leads to in another of the sandbox's workspaces, there", async () => {
    const { ws, other } = scratch();
    writeFileSync(join(other, "envrc"), "use nix\n");
    symlinkSync(join(other, "envrc"), join(ws, ".envrc"));
    expect(await resolveGuard([ws, other], 0, { path: ".envrc", placeholder: dir })).toEqual([
      { root: 0, path: ".envrc", state: "link" },
      { root: 1, path: "envrc", state: "present" },
    ]);
  });

  it("holds a file where a directory is needed (it cannot become one), and a link on the way inside the workspace", async () => {
    const { ws } = scratch();
    writeFileSync(join(ws, "a"), "a file\n");
    mkdirSync(join(ws, "real"));
    symlinkSync("real", join(ws, "sub"));
    expect(await resolveGuard([ws], 0, { path: "a/b", placeholder: dir })).toEqual([
      { root: 0, path: "a", state: "present" },
    ]);
    expect(await resolveGuard([ws], 0, { path: "sub/x", placeholder: dir })).toEqual([
      { root: 0, path: "sub", state: "link" },
      { root: 0, path: "real/x", state: "absent", placeholder: dir },
    ]);
  });

  it("calls a guard that leads to a workspace itself or above it unholdable, and stops at a loop of links", async () => {
    const { ws } = scratch();
    symlinkSync(".", join(ws, ".vscode"));
    symlinkSync("..", join(ws, ".forage"));
    symlinkSync("loop-b", join(ws, "loop-a"));
    symlinkSync("loop-a", join(ws, "loop-b"));
    expect((await resolveGuard([ws], 0, { path: ".vscode", placeholder: dir })).at(-1)).toEqual({
      root: 0,
      path: "",
      state: "unholdable",
    });
    expect((await resolveGuard([ws], 0, { path: ".forage", placeholder: dir })).at(-1)).toEqual({
      root: 0,
      path: "..",
      state: "unholdable",
    });
    const loop = await resolveGuard([ws], 0, { path: "loop-a", placeholder: dir });
    expect(new Set(loop.map((step) => `${step.state} ${step.path}`))).toEqual(new Set(["link loop-a", "link loop-b"]));
  });
});
