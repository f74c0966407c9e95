import { spawn } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  closeSync,
  readFileSync,
  readlinkSync,
  renameSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import {
  bindDescriptors,
  makePointsAs,
  mountsHelperPath,
  pinInside,
  resizeTmpfs,
  unmountPoints,
} from "../../../runtime/mounts/host-mounts.js";
import { runCommand } from "../../../runtime/core/run-command.js";
import { scratchDirs } from "../../support/scratch-dirs.js";
import { isRoot } from "../../support/tools.js";

const nobody = { uid: 65534, gid: 65534 };
const mountLine = (mountinfo: string, point: string): string | undefined =>
  mountinfo.split("\n").find((line) => line.split(" ")[4] === point);

describe.skipIf(!isRoot())("forage-mounts, the static helper for a start's host-side mounts", () => {
  const scratch = scratchDirs("forage-host-mounts-");

  it("makes mount points as the user: directories and files with their text, never over what exists, never through a link", async () => {
    const dir = scratch();
    chmodSync(dir, 0o755);
    const mine = join(dir, "mine");
    mkdirSync(mine);
    chownSync(mine, nobody.uid, nobody.gid);
    writeFileSync(join(mine, "kept"), "the user's\n");
    symlinkSync(join(dir, "outside"), join(mine, "dangling"));
    const answers = await makePointsAs(nobody, [
      { kind: "d", path: join(mine, "new-dir"), text: "" },
      { kind: "f", path: join(mine, "new-file"), text: ".\n" },
      { kind: "f", path: join(mine, "kept"), text: "replaced\n" },
      { kind: "f", path: join(mine, "dangling"), text: "through the link\n" },
      // The user cannot write in a root-owned directory: nothing is made there (the helper is not root by then).
      { kind: "d", path: join(dir, "roots"), text: "" },
    ]);
    // One answer a point: the caller records what was made, and drops what the user may not create.
    expect(answers).toEqual(["made", "made", "exists", "exists", "denied"]);
    expect([lstatSync(join(mine, "new-dir")).isDirectory(), lstatSync(join(mine, "new-dir")).uid]).toEqual([
      true,
      nobody.uid,
    ]);
    expect([readFileSync(join(mine, "new-file"), "utf8"), lstatSync(join(mine, "new-file")).uid]).toEqual([
      ".\n",
      nobody.uid,
    ]);
    expect(readFileSync(join(mine, "kept"), "utf8")).toBe("the user's\n");
    expect(existsSync(join(dir, "outside"))).toBe(false);
    expect(existsSync(join(dir, "roots"))).toBe(false);
    // A request with a kind it does not know makes nothing at all, not the points before it.
    const refused = await runCommand(
      mountsHelperPath(),
      ["make-points", "65534", "65534", "d", join(mine, "first"), "", "x", join(mine, "second"), ""],
      { reject: false },
    );
    expect([refused.exitCode, refused.stderr, existsSync(join(mine, "first"))]).toEqual([
      1,
      "forage-mounts: make-points x: Invalid argument",
      false,
    ]);
  });

  it("pins inside a staged tree: a link onto itself (it cannot be removed), read-only and writable binds, a stand-in", async () => {
    const dir = scratch();
    const tree = join(dir, "tree");
    mkdirSync(join(tree, "real/sub"), { recursive: true });
    mkdirSync(join(tree, "point"));
    mkdirSync(join(dir, "stand-in"));
    writeFileSync(join(tree, "real/config"), "[core]\n");
    symlinkSync("real", join(tree, ".git"));
    const mountinfo = (): string => readFileSync("/proc/self/mountinfo", "utf8");
    try {
      const done = await pinInside(tree, [
        { kind: "rw", path: "real", source: "" },
        { kind: "link", path: ".git", source: "" },
        { kind: "ro", path: "real/config", source: "" },
        { kind: "from", path: "point", source: join(dir, "stand-in") },
      ]);
      expect(done).toEqual({ ok: true });
      expect(() => unlinkSync(join(tree, ".git"))).toThrow("EBUSY");
      expect(() => renameSync(join(tree, "real"), join(tree, "aside"))).toThrow("EBUSY");
      expect(readlinkSync(join(tree, ".git"))).toBe("real");
      expect(() => writeFileSync(join(tree, "real/config"), "x")).toThrow("EROFS");
      writeFileSync(join(tree, "real/sub/written"), "the rest stays writable\n");
      expect(() => writeFileSync(join(tree, "point/x"), "x")).toThrow("EROFS");
      expect(mountLine(mountinfo(), join(tree, ".git"))).toBeDefined();
    } finally {
      await unmountPoints([join(tree, "point"), join(tree, "real/config"), join(tree, ".git"), join(tree, "real")]);
    }
    expect([".git", "real", "point"].map((path) => mountLine(mountinfo(), join(tree, path)))).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it("pins nothing reached through a link, or out of the tree, nor a link where none was asked for, and says which path it refused", async () => {
    const dir = scratch();
    const tree = join(dir, "tree");
    mkdirSync(join(dir, "outside"));
    mkdirSync(tree);
    symlinkSync(join(dir, "outside"), join(tree, "link"));
    for (const path of ["link/x", "../outside", "/etc"]) {
      const refused = await pinInside(tree, [{ kind: "ro", path, source: "" }]);
      expect(refused).toEqual({
        ok: false,
        reason: expect.stringContaining(`forage-mounts: pin ro ${path}:`) as unknown,
      });
    }
    // A link where none was asked for (a name swapped for one after forage-ctl looked), and none where one was.
    mkdirSync(join(tree, "dir"));
    expect(await pinInside(tree, [{ kind: "ro", path: "link", source: "" }])).toEqual({
      ok: false,
      reason: "forage-mounts: pin ro link: Too many levels of symbolic links",
    });
    expect(await pinInside(tree, [{ kind: "link", path: "dir", source: "" }])).toEqual({
      ok: false,
      reason: "forage-mounts: pin link dir: Invalid argument",
    });
    expect(readFileSync("/proc/self/mountinfo", "utf8")).not.toContain(join(dir, "outside"));
  });

  it("binds descriptors all or nothing, and unmounts what it bound", async () => {
    const dir = scratch();
    for (const sub of ["a", "b", "point-a", "point-b"]) mkdirSync(join(dir, sub));
    writeFileSync(join(dir, "a/which"), "a\n");
    const fds = [openSync(join(dir, "a"), "r"), openSync(join(dir, "b"), "r")];
    try {
      // The second point is missing: the first must not stay bound.
      const refused = await bindDescriptors([
        { fd: fds[0] ?? -1, point: join(dir, "point-a") },
        { fd: fds[1] ?? -1, point: join(dir, "missing") },
      ]);
      expect(refused).toEqual({
        ok: false,
        reason: expect.stringContaining(`bind ${join(dir, "missing")}: No such file or directory`),
      });
      expect(mountLine(readFileSync("/proc/self/mountinfo", "utf8"), join(dir, "point-a"))).toBeUndefined();
      const bound = await bindDescriptors([
        { fd: fds[0] ?? -1, point: join(dir, "point-a") },
        { fd: fds[1] ?? -1, point: join(dir, "point-b") },
      ]);
      expect(bound).toEqual({ ok: true });
      expect(readFileSync(join(dir, "point-a/which"), "utf8")).toBe("a\n");
      await unmountPoints([join(dir, "point-b"), join(dir, "point-a")]);
      const mountinfo = readFileSync("/proc/self/mountinfo", "utf8");
      expect([mountLine(mountinfo, join(dir, "point-a")), mountLine(mountinfo, join(dir, "point-b"))]).toEqual([
        undefined,
        undefined,
      ]);
    } finally {
      for (const fd of fds) closeSync(fd);
      // Nothing left mounted on the scratch directory when an assertion failed midway.
      await unmountPoints([join(dir, "point-b"), join(dir, "point-a")]);
    }
  });

  it("resizes a tmpfs in another process's mount namespace and keeps its flags, and refuses anything else", async () => {
    const point = scratch();
    // A process with its own mount namespace and a small nosuid,nodev,noexec tmpfs in it.
    const holder = spawn(
      "unshare",
      [
        "--mount",
        "--propagation",
        "private",
        "sh",
        "-c",
        `mount -t tmpfs -o size=1m,mode=755,nosuid,nodev,noexec tmpfs "$1" && echo ready && exec sleep 30`,
        "sh",
        point,
      ],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    try {
      // Ready, or gone (unshare or mount failed): never a wait until the test's timeout.
      await Promise.race([
        once(holder.stdout, "data"),
        once(holder, "exit").then(() => Promise.reject(new Error("the namespace holder exited before it was ready"))),
      ]);
      const pid = holder.pid;
      if (pid === undefined) throw new Error("the namespace holder has no pid");
      const before = mountLine(readFileSync(`/proc/${pid}/mountinfo`, "utf8"), point) ?? "";
      expect(before).toContain("size=1024k");
      await resizeTmpfs(pid, point, 4 * 1024 * 1024);
      const after = mountLine(readFileSync(`/proc/${pid}/mountinfo`, "utf8"), point) ?? "";
      expect(after).toContain("size=4096k");
      expect(after.split(" ")[5]?.split(",").sort()).toEqual(["nodev", "noexec", "nosuid", "relatime", "rw"]);
      // This process's namespace was never touched.
      expect(mountLine(readFileSync("/proc/self/mountinfo", "utf8"), point)).toBeUndefined();
      await expect(resizeTmpfs(pid, "relative", 1024)).rejects.toThrow("resize-tmpfs relative: Invalid argument");
      // Only a tmpfs: a remount of anything else would change its whole filesystem (here the proc mount).
      await expect(resizeTmpfs(pid, "/proc", 4 * 1024 * 1024)).rejects.toThrow("resize-tmpfs /proc: not a tmpfs");
      // Only whole decimal numbers: no sign, no space (strtoull would wrap " -1" round).
      for (const bytes of [" -1", "+5", " 5", "5x"]) {
        const refused = await runCommand(mountsHelperPath(), ["resize-tmpfs", String(pid), point, bytes], {
          reject: false,
        });
        expect([refused.exitCode, refused.stderr]).toEqual([1, "forage-mounts: resize-tmpfs bytes: Invalid argument"]);
      }
    } finally {
      holder.kill("SIGKILL");
    }
  });
});
