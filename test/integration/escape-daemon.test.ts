import { chmodSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { agentUid, TestHost, type CliRun } from "./harness.js";
import { runAsUser, startTestDaemon } from "./test-daemon.js";

/*
 * Escape attempts on the daemon's socket. The configured user is nobody (65534, primary group
 * nogroup 65534, as in the quickstart); the attacker is another uid in that same group, which is
 * what every service running as nogroup is. Each attempt has a control run by the user itself,
 * so a refusal cannot come from a daemon that is simply down.
 */
const tools = toolsAvailable("setpriv", "flock");

/** Another account sharing the user's primary group (nogroup), as many system services do. */
const groupMateUid = 65533;

describe.skipIf(!tools.run || !isRoot())("escape: the daemon's socket", () => {
  const host = new TestHost("10.242");
  const socket = join(host.env.FORAGE_RUN_DIR ?? "", "daemon.sock");
  let daemon: Promise<unknown> | undefined;

  /** Runs the CLI as `uid` with primary group nogroup (the user's), no supplementary groups. */
  const runAs = (uid: number, args: string[]): Promise<CliRun> => runAsUser(host, args, uid);
  /** The daemon's pid as `hello` answers it to root: proof that it still serves. */
  const daemonPid = async (): Promise<number | undefined> => {
    const { daemonHello } = await import("../../runtime/daemon/client.js");
    return (await daemonHello(socket).catch(() => null))?.pid;
  };

  beforeAll(async () => {
    // Like /run: everyone may traverse to the socket; the socket's own owner and mode decide.
    chmodSync(host.dir, 0o711);
    daemon = (await startTestDaemon(host)).exited;
  });
  afterAll(async () => {
    await host.run(["daemon", "--stop"]);
    await daemon;
    await host.cleanup();
  });

  it("lets the configured user list sandboxes (control)", async () => {
    const listed = await runAs(agentUid, ["ps", "--json"]);
    expect(listed.stderr).toBe("");
    expect(listed).toMatchObject({ exitCode: 0, stdout: "[]" });
  });

  it("refuses a group mate of the configured user at connect, before any operation", async () => {
    const listed = await runAs(groupMateUid, ["ps", "--json"]);
    expect(listed.exitCode).toBe(1);
    expect(listed.stderr).toContain("the forage daemon is not reachable");
    expect(listed.stderr).toContain("EACCES");
    expect(listed.stdout).toBe("");
  });

  it("refuses a group mate's gc --force (control: the configured user's gc answers)", async () => {
    expect(await runAs(agentUid, ["gc"])).toMatchObject({ exitCode: 0 });
    const gc = await runAs(groupMateUid, ["gc", "--force"]);
    expect(gc.exitCode).toBe(1);
    expect(gc.stderr).toContain("EACCES");
  });

  it("refuses a group mate's shutdown: the same daemon still serves afterwards", async () => {
    const before = await daemonPid();
    expect(before).toBeGreaterThan(0);
    const stop = await runAs(groupMateUid, ["daemon", "--stop"]);
    expect(stop.exitCode).toBe(1);
    expect(stop.stderr).toContain("EACCES");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await daemonPid()).toBe(before);
    // Control: the configured user can still reach the daemon it was not stopped for.
    expect((await runAs(agentUid, ["ps"])).exitCode).toBe(0);
  });
});
