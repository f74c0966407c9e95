import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemProgram, systemProgramDirs, userCommandPath } from "../../../runtime/core/user-command-path.js";
import { runUserGit } from "../../../runtime/gates/push-gate/user-git.js";
import { runVcs } from "../../../runtime/workspaces/vcs-command.js";
import { makeTestUser, type TestUser } from "../../support/test-user.js";
import { isRoot, toolsAvailable } from "../../support/tools.js";

/*
 * Programs run as the user are found where the user's own are, NixOS profiles first (the daemon's
 * systemd PATH has no git there); a program root starts is found in the system's directories
 * only. GIVEN a real account whose ~/.nix-profile/bin holds its own `git` (which records whom it
 * runs as, then hands over to the real git) and a planted `setpriv`, WHEN the workspaces' and the
 * push gate's git run, THEN the profile's git runs, as the user, and the planted setpriv never.
 */
describe("the PATH of programs run as the user", () => {
  it("puts the user's NixOS profiles before the system's directories", () => {
    expect(userCommandPath({ name: "alice", home: "/home/alice" }).split(":")).toEqual([
      "/home/alice/.nix-profile/bin",
      "/etc/profiles/per-user/alice/bin",
      ...systemProgramDirs,
    ]);
    expect(userCommandPath({ home: "/home/bob" }).split(":")[1]).toBe("/run/wrappers/bin");
  });

  it("finds a system program for root in the system's directories only, and says where it looked", async () => {
    expect(systemProgramDirs).toContain((await systemProgram("sh")).replace(/\/sh$/, ""));
    await expect(systemProgram("forage-no-such-program")).rejects.toThrow(
      /forage-no-such-program is not installed in \/run\/wrappers\/bin, /,
    );
  });
});

const tools = toolsAvailable("git", "setpriv", "useradd", "userdel");

describe.skipIf(!tools.run || !isRoot())(
  "git for the user's repositories, on a host where it is in their Nix profile",
  () => {
    const dir = mkdtempSync(join(tmpdir(), "forage-user-path-"));
    const home = join(dir, "home");
    const planted = join(dir, "planted-setpriv-ran");
    let user: TestUser;

    beforeAll(() => {
      chmodSync(dir, 0o755);
      user = makeTestUser("path", home);
      const bin = join(home, ".nix-profile", "bin");
      mkdirSync(bin, { recursive: true });
      writeFileSync(join(bin, "git"), `#!/bin/sh\nid -u >> "$HOME/git-ran-as"\nexec /usr/bin/git "$@"\n`, {
        mode: 0o755,
      });
      writeFileSync(join(bin, "setpriv"), `#!/bin/sh\ntouch ${planted}\nexit 1\n`, { mode: 0o755 });
      for (const path of [home, join(home, ".nix-profile"), bin, join(bin, "git"), join(bin, "setpriv")])
        chownSync(path, user.uid, user.gid);
    });
    afterAll(() => {
      user.remove();
      rmSync(dir, { recursive: true, force: true });
    });

    const ranAs = (): string[] => readFileSync(join(home, "git-ran-as"), "utf8").trim().split("\n");

    it("runs the workspaces' git from the user's profile, as the user", async () => {
      expect(
        await runVcs(
          { uid: user.uid, gid: user.gid, home, name: user.name },
          "git",
          ["--version"],
          "ask git its version",
        ),
      ).toMatch(/^git version /);
      expect(ranAs()).toEqual([String(user.uid)]);
    });

    it("runs the push gate's git from the user's profile as the user, through the system's setpriv, never the planted one", async () => {
      const result = await runUserGit(user, ["--version"]);
      expect([result.exitCode, String(result.stdout)]).toEqual([0, expect.stringMatching(/^git version /)]);
      expect(ranAs()).toEqual([String(user.uid), String(user.uid)]);
      expect(existsSync(planted)).toBe(false);
    });
  },
);
