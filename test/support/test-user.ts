import { execFileSync } from "node:child_process";
import type { HostUser } from "../../runtime/core/host-user.js";

/** A host account made for one test file; `remove` deletes it (and nothing else: it has no home on disk). */
export interface TestUser extends HostUser {
  remove(): void;
}

/**
 * Makes an unprivileged account of its own for a test (root only; `useradd`, `userdel`): a real
 * uid that is neither root nor an account another test or the machine uses, so what the test
 * starts as it (a session bus, a notification) is the test's alone. Named `f<purpose><pid>`
 * (useradd allows 32 characters); its home is `home`, which is not created.
 *
 * @example const user = makeTestUser("notify"); // { name: "fnotify12345", uid: 1001, gid: 1001, home: "/nonexistent" }
 */
export function makeTestUser(purpose: string, home = "/nonexistent"): TestUser {
  const name = `f${purpose}${process.pid % 100000}`.slice(0, 32);
  execFileSync("useradd", [
    "--no-create-home",
    "--home-dir",
    home,
    "--shell",
    "/usr/sbin/nologin",
    "--comment",
    `Forage test (${purpose}); removed at the end`,
    name,
  ]);
  const [uid, gid] = ["-u", "-g"].map((flag) => Number(execFileSync("id", [flag, name], { encoding: "utf8" }).trim()));
  return {
    name,
    uid: uid ?? -1,
    gid: gid ?? -1,
    home,
    remove: () => execFileSync("userdel", [name]),
  };
}
