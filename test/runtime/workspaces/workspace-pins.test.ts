import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { workspacePins } from "../../../runtime/workspaces/workspace-pins.js";
import { isRoot } from "../../support/tools.js";

const nobody = { uid: 65534, gid: 65534 };

describe.skipIf(!isRoot())("the pins of a sandbox's writable workspaces", () => {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  /** A workspace owned by the user (stand-ins are made as the user). */
  const workspace = (): string => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "forage-pins-")));
    made.push(dir);
    // The user reaches the workspace (mkdtemp made its parent 0700, root's).
    chmodSync(dir, 0o711);
    const ws = join(dir, "ws");
    mkdirSync(ws);
    return ws;
  };
  const own = (path: string) => execa("chown", ["-hR", `${nobody.uid}:${nobody.gid}`, path]);

  it("holds a linked .git and what it leads to: the link, the directory it reaches (writable, so it cannot be renamed), its config and hooks, stand-ins for what is absent", async () => {
    const ws = workspace();
    mkdirSync(join(ws, "realgit/hooks"), { recursive: true });
    writeFileSync(join(ws, "realgit/config"), "[core]\n");
    symlinkSync("realgit", join(ws, ".git"));
    await own(ws);
    const { pins, made: standIns } = await workspacePins([{ hostPath: ws, unprotected: [] }], nobody, true);
    const byPath = new Map((pins[0] ?? []).map((pin) => [pin.path, pin]));
    expect(byPath.get(".git")).toEqual({ kind: "self", path: ".git", readOnly: true, link: true });
    expect(byPath.get("realgit")).toEqual({ kind: "self", path: "realgit", readOnly: false });
    expect(byPath.get("realgit/config")).toEqual({ kind: "self", path: "realgit/config", readOnly: true });
    expect(byPath.get("realgit/hooks")).toEqual({ kind: "self", path: "realgit/hooks", readOnly: true });
    expect(byPath.get("realgit/commondir")).toEqual({
      kind: "stand-in",
      path: "realgit/commondir",
      placeholder: { kind: "file", text: ".\n" },
    });
    // The stand-ins made are the ones reported (recorded for their removal), and exist as the user's.
    expect(standIns[0]?.map((standIn) => standIn.path)).toEqual(
      expect.arrayContaining(["realgit/commondir", ".envrc", "forage.json"]),
    );
    expect(existsSync(join(ws, "realgit/commondir"))).toBe(true);
    // Mount order: a directory before anything in it.
    const order = (pins[0] ?? []).map((pin) => pin.path);
    expect(order.indexOf("realgit")).toBeLessThan(order.indexOf("realgit/config"));
  });

  it("holds what a link leads to in another of the sandbox's workspaces, in that workspace's pins", async () => {
    const ws = workspace();
    const other = workspace();
    writeFileSync(join(other, "envrc"), "use nix\n");
    symlinkSync(join(other, "envrc"), join(ws, ".envrc"));
    await own(ws);
    await own(other);
    const { pins } = await workspacePins(
      [
        { hostPath: ws, unprotected: [] },
        { hostPath: other, unprotected: [] },
      ],
      nobody,
      true,
    );
    expect(pins[0]).toContainEqual({ kind: "self", path: ".envrc", readOnly: true, link: true });
    expect(pins[1]).toContainEqual({ kind: "self", path: "envrc", readOnly: true });
  });

  it("refuses a protected name that leads to the workspace itself, naming it and the fix", async () => {
    const ws = workspace();
    symlinkSync(".", join(ws, ".vscode"));
    await own(ws);
    await expect(workspacePins([{ hostPath: ws, unprotected: [] }], nobody, true)).rejects.toMatchObject({
      kind: "usage",
      message: expect.stringContaining(`leads to ${ws}, a workspace itself or a directory holding one`) as unknown,
    });
    // A template that lifts it holds nothing there.
    await expect(workspacePins([{ hostPath: ws, unprotected: [".vscode"] }], nobody, true)).resolves.toBeDefined();
  });

  it("drops a stand-in the user may not create (the agent, with the user's ids, cannot either), and makes none without stand-ins", async () => {
    const ws = workspace();
    mkdirSync(join(ws, ".git"));
    await own(ws);
    chownSync(join(ws, ".git"), 0, 0);
    const { pins, made: standIns } = await workspacePins([{ hostPath: ws, unprotected: [] }], nobody, true);
    expect((pins[0] ?? []).filter((pin) => pin.kind === "stand-in" && pin.path.startsWith(".git/"))).toEqual([]);
    // The user's own directory takes stand-ins as ever: only root's .git refused them.
    expect(standIns[0]?.map((standIn) => standIn.path)).toEqual(expect.arrayContaining([".envrc", ".vscode"]));
    expect(standIns[0]?.map((standIn) => standIn.path)).not.toContain(".git/info");
    const bare = workspace();
    await own(bare);
    const none = await workspacePins([{ hostPath: bare, unprotected: [] }], nobody, false);
    expect([none.made, (none.pins[0] ?? []).filter((pin) => pin.kind === "stand-in")]).toEqual([[[]], []]);
  });
});
