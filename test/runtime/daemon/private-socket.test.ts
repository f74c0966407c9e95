import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isRootsSocket, listenPrivately, prepareSocketDirectory } from "../../../runtime/core/private-socket.js";
import { isRoot } from "../../support/tools.js";

describe.skipIf(!isRoot())("the daemon's private socket", () => {
  const dir = mkdtempSync(join(tmpdir(), "forage-sock-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is owned by the configured user, group root, mode 0600", async () => {
    const path = join(dir, "run", "daemon.sock");
    await prepareSocketDirectory(path);
    const server = createServer();
    await listenPrivately(server, path, 65534);
    const info = statSync(path);
    server.close();
    expect({ uid: info.uid, gid: info.gid, mode: (info.mode & 0o777).toString(8) }).toEqual({
      uid: 65534,
      gid: 0,
      mode: "600",
    });
    expect((statSync(join(dir, "run")).mode & 0o777).toString(8)).toBe("755");
  });

  it("root's client trusts a socket only when it is root's, in a directory only root writes to", async () => {
    const path = join(dir, "roots", "daemon-root.sock");
    await prepareSocketDirectory(path);
    expect(await isRootsSocket(path)).toBe(false); // nothing there yet
    const server = createServer();
    await listenPrivately(server, path, 0);
    expect(await isRootsSocket(path)).toBe(true);
    chmodSync(join(dir, "roots"), 0o777); // anyone could have put it there
    expect(await isRootsSocket(path)).toBe(false);
    chmodSync(join(dir, "roots"), 0o755);
    server.close();
    const users = join(dir, "users", "daemon-root.sock");
    await prepareSocketDirectory(users);
    const other = createServer();
    await listenPrivately(other, users, 65534); // a socket of the user's
    expect(await isRootsSocket(users)).toBe(false);
    other.close();
  });

  it("lets everyone traverse to the sockets, also in a directory a lock made 0750 before the daemon came", async () => {
    const run = join(dir, "locked-first");
    mkdirSync(run, { mode: 0o750 });
    chmodSync(run, 0o750);
    await prepareSocketDirectory(join(run, "daemon.sock"));
    expect((statSync(run).mode & 0o777).toString(8)).toBe("751");
  });

  it("refuses a link as the socket directory (it is opened without following one)", async () => {
    mkdirSync(join(dir, "real"), { mode: 0o755 });
    symlinkSync(join(dir, "real"), join(dir, "linked"));
    await expect(prepareSocketDirectory(join(dir, "linked", "daemon.sock"))).rejects.toThrow(
      /must be a directory owned by root .*\(it is a link or not a directory\)/,
    );
  });

  it("refuses a socket directory that others can write to, and says how to fix it", async () => {
    const shared = join(dir, "shared");
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    await expect(prepareSocketDirectory(join(shared, "daemon.sock"))).rejects.toThrow(
      /must be a directory owned by root that only root can write to .* chmod 755/,
    );
  });
});
