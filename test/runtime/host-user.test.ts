import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { lookupGroupId, lookupHostUser, lookupHostUserById } from "../../runtime/core/host-user.js";

describe("host users and groups from /etc files", () => {
  const dir = mkdtempSync(join(tmpdir(), "forage-etc-"));
  const passwd = join(dir, "passwd");
  const group = join(dir, "group");
  writeFileSync(passwd, "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:100:Alice:/home/alice:/bin/zsh\n");
  writeFileSync(group, "users:x:100:alice,bob\nforage:x:977:alice\nforage2:x:978:\n");
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("finds a user's uid, primary gid and home", async () => {
    expect(await lookupHostUser("alice", passwd)).toEqual({ name: "alice", uid: 1000, gid: 100, home: "/home/alice" });
    expect(await lookupHostUser("mallory", passwd)).toBeUndefined();
  });

  it("finds a user by uid, the first account with it (as getpwuid does)", async () => {
    expect(await lookupHostUserById(1000, passwd)).toEqual({ name: "alice", uid: 1000, gid: 100, home: "/home/alice" });
    expect(await lookupHostUserById(0, passwd)).toMatchObject({ name: "root" });
    expect(await lookupHostUserById(4242, passwd)).toBeUndefined();
  });

  it("finds the dedicated forage group by its exact name", async () => {
    expect(await lookupGroupId("forage", group)).toBe(977);
    expect(await lookupGroupId("forag", group)).toBeUndefined();
    expect(await lookupGroupId("forage", join(dir, "missing"))).toBeUndefined();
  });
});
