import { statSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runtimePaths } from "../../../../runtime/core/paths.js";
import { runGuardHost } from "../../../../runtime/gates/network/guard-host.js";
import { guardAnswer } from "../../../../runtime/gates/network/guard-protocol.js";
import { isOurGuard, recordDenials, reloadGuard, stopGuard } from "../../../../runtime/gates/network/guard-process.js";
import { scratchDirs } from "../../../support/scratch-dirs.js";
import { isRoot } from "../../../support/tools.js";

/** One raw line to the host and its raw answer. */
function ask(socket: string, line: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const client = connect(socket);
    let text = "";
    client.on("data", (chunk: Buffer) => (text += chunk.toString()));
    client.on("error", reject);
    client.on("close", () => resolve(JSON.parse(text) as unknown));
    client.write(`${line}\n`);
  });
}

describe("the network guard host", () => {
  const scratch = scratchDirs("forage-guard-host-");

  it.skipIf(!isRoot())(
    "answers on a socket only root reaches, refuses what is no request, and exits once it has had nothing to guard for its idle time",
    async () => {
      const run = scratch();
      const paths = runtimePaths(join(run, "state"), { FORAGE_RUN_DIR: run });
      const lines: string[] = [];
      // No sandbox here asks about a name: a question would be a bug, and is refused.
      const host = runGuardHost(
        paths.guardSocket,
        (line) => lines.push(line),
        1500,
        () => Promise.reject(new Error("no question expected in this test")),
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(statSync(paths.guardSocket).mode & 0o777).toBe(0o600);
      expect(
        await ask(paths.guardSocket, JSON.stringify({ op: "has", stateDir: paths.stateDir, sandbox: "web" })),
      ).toEqual({ ok: true, pid: process.pid, has: false });
      expect(await ask(paths.guardSocket, JSON.stringify({ op: "add", spec: { sandbox: "web" } }))).toMatchObject({
        ok: false,
        error: expect.stringMatching(/^invalid guard request: spec\./) as unknown,
      });
      expect(await ask(paths.guardSocket, "not json")).toEqual({ ok: false, error: "protocol line is not JSON" });
      expect(
        await ask(paths.guardSocket, JSON.stringify({ op: "reload", stateDir: paths.stateDir, sandbox: "web" })),
      ).toEqual({ ok: false, error: "sandbox web is not guarded here" });
      expect(
        await ask(paths.guardSocket, JSON.stringify({ op: "ports", stateDir: paths.stateDir, sandbox: "web" })),
      ).toEqual({ ok: false, error: "sandbox web is not guarded here" });
      // The client's calls: a sandbox the host does not guard is no guard of ours, and stopping or recording it is harmless.
      const handle = { pid: process.pid, dnsPort: 1, tlsPort: 2, httpPort: 3 };
      expect(await isOurGuard(paths, handle, "web")).toBe(false);
      expect(await reloadGuard(paths, handle, "web")).toBe(false);
      await stopGuard(paths, handle, "web");
      await recordDenials(paths, handle, "web");
      await host;
      expect(lines.at(-1)).toBe("no sandbox left to guard: exiting");
    },
    10_000,
  );

  it("checks the host's answers: ports are ports, an error is passed on, anything else is refused", () => {
    expect(guardAnswer({ ok: true, pid: 7, services: { dnsPort: 53, tlsPort: 443, httpPort: 80 } })).toEqual({
      ok: true,
      pid: 7,
      services: { dnsPort: 53, tlsPort: 443, httpPort: 80 },
    });
    expect(guardAnswer({ ok: false, error: "no" })).toEqual({ ok: false, error: "no" });
    expect(() => guardAnswer({ ok: true, pid: 7, services: { dnsPort: 0, tlsPort: 443, httpPort: 80 } })).toThrow(
      "a port that is none",
    );
    expect(() => guardAnswer({ ready: true })).toThrow("not one");
    const forwards = [{ hostPort: 8080, port: 3000, open: false, error: "EADDRINUSE" }];
    expect(guardAnswer({ ok: true, pid: 7, forwards })).toEqual({ ok: true, pid: 7, forwards });
    expect(() =>
      guardAnswer({ ok: true, pid: 7, forwards: [{ hostPort: 8080, port: 0, open: true, error: null }] }),
    ).toThrow("a forward that is none");
    expect(() => guardAnswer({ ok: true, pid: 7, forwards: {} })).toThrow("forwards that are no list");
  });
});
