import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { UserError } from "../../../runtime/core/errors.js";
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
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

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

  it("keeps the build a daemon says it runs (root hands work only to the same build)", async () => {
    await answering({ result: { settings: "/etc/forage/forage.json", pid: 42, version: "0.1.0+1" } });
    expect(await daemonHello(socket)).toEqual({ settings: "/etc/forage/forage.json", pid: 42, version: "0.1.0+1" });
  });

  it("refuses an answer without settings and pid, naming mismatched versions", async () => {
    await answering({ result: { settings: 3 } });
    await expect(daemonHello(socket)).rejects.toThrow(
      /answered hello with \{"settings":3\}, not what this forage-ctl expects \(expected the settings it serves and its pid; mismatched forage-ctl versions/,
    );
  });

  it("passes on any other refusal of the daemon", async () => {
    await answering({ error: { message: "something else", kind: "general" } });
    await expect(daemonHello(socket)).rejects.toThrow("something else");
  });

  it("keeps a bug in the daemon a bug (no user error: the CLI says internal error, exit 70), and a user error's report as the daemon made it", async () => {
    await answering({ error: { message: "Cannot read properties of undefined", kind: "general", internal: true } });
    const bug = await daemonHello(socket).catch((error: unknown) => error);
    expect(bug).not.toBeInstanceOf(UserError);
    expect(String(bug)).toContain(
      "the forage daemon failed (a bug; its log has the details): Cannot read properties of undefined",
    );
    await new Promise((resolve) => server?.close(resolve));
    await answering({
      error: {
        message: "x.yaml:1:1: bad",
        kind: "config",
        report: "x.yaml:1:1: bad\nforage-ctl: 1 problem in the config\n",
      },
    });
    const refused = (await daemonHello(socket).catch((error: unknown) => error)) as UserError;
    expect([refused.kind, refused.report("forage-ctl")]).toEqual([
      "config",
      "x.yaml:1:1: bad\nforage-ctl: 1 problem in the config\n",
    ]);
  });

  it("rejects with DaemonUnavailableError when nothing listens", async () => {
    await expect(daemonHello(socket)).rejects.toBeInstanceOf(DaemonUnavailableError);
  });
});
