import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DaemonUnavailableError, daemonHello } from "../../../runtime/daemon/client.js";

/*
 * `hello` is the one call that crosses versions: a client asks whichever daemon runs. These
 * daemons answer one fixed line, as an older or a mismatched daemon would.
 */
describe("asking a daemon who it is (hello)", () => {
  const dir = mkdtempSync(join(tmpdir(), "forage-hello-"));
  const socket = join(dir, "daemon.sock");
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (server === undefined ? resolve(undefined) : server.close(resolve)));
    server = undefined;
  });
  afterEach(() => rmSync(socket, { force: true }));

  /** A daemon that answers every request with `line`. */
  const answering = (line: object): Promise<void> =>
    new Promise((resolve) => {
      server = createServer((client) => client.once("data", () => client.end(`${JSON.stringify(line)}\n`)));
      server.listen(socket, resolve);
    });

  it("is null from a daemon too old to know hello (it answers an unknown operation)", async () => {
    await answering({ error: { message: 'unknown operation "hello"', kind: "usage" } });
    expect(await daemonHello(socket)).toBeNull();
  });

  it("takes a newer daemon's answer, keeping the settings and pid it knows", async () => {
    await answering({ result: { settings: "/etc/forage/forage.json", pid: 42, uptime: 7 } });
    expect(await daemonHello(socket)).toEqual({ settings: "/etc/forage/forage.json", pid: 42 });
  });

  it("refuses an answer without settings and pid, naming mismatched versions", async () => {
    await answering({ result: { settings: 3 } });
    await expect(daemonHello(socket)).rejects.toThrow(/answered hello with \{"settings":3\}, not what this forage-ctl expects \(settings .*mismatched forage-ctl versions/);
  });

  it("passes on any other refusal of the daemon", async () => {
    await answering({ error: { message: "something else", kind: "general" } });
    await expect(daemonHello(socket)).rejects.toThrow("something else");
  });

  it("rejects with DaemonUnavailableError when nothing listens", async () => {
    await expect(daemonHello(socket)).rejects.toBeInstanceOf(DaemonUnavailableError);
  });
});
