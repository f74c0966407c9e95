import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { agentUid, TestHost } from "./harness.js";
import { installStandInSystem } from "./host-user.js";

/*
 * Issue 26: /proc/keys inside a sandbox listed the host user's keys by name (the agent has that
 * user's uid, and the kernel lists every key its reader may view); /proc/key-users gave their
 * counts. Both are masked on every runtime. The control reads them as the same uid on the host,
 * where nothing masks them.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "keyctl", "nix-build", "busybox");

describe.skipIf(!tools.run || !isRoot())("escapes through /proc/keys", () => {
  const host = new TestHost("10.212");
  const keyName = `forage-h26-${Math.random().toString(36).slice(2, 10)}`;
  /** Runs a program on the host as the agent's uid (the host user the sandboxes run as). */
  const asUser = (args: string[]) => execa("setpriv", ["--reuid", String(agentUid), "--regid", String(agentUid), "--clear-groups", ...args], { reject: false });

  beforeAll(async () => {
    installStandInSystem(host.dir, host.extraEnv, ["basic"]);
    // A key in that uid's user keyring, as the user would have (an ssh or login token's name).
    const added = await asUser(["keyctl", "add", "user", keyName, "not-for-the-agent", "@u"]);
    expect(added.exitCode, added.stderr).toBe(0);
  }, 180_000);
  afterAll(async () => {
    await asUser(["keyctl", "purge", "user", keyName]);
    await host.cleanup();
  });

  it("control: on the host, the user's /proc/keys names the key and /proc/key-users counts it", async () => {
    expect((await asUser(["cat", "/proc/keys"])).stdout).toContain(keyName);
    expect((await asUser(["cat", "/proc/key-users"])).stdout).toMatch(new RegExp(`^\\s*${agentUid}: `, "m"));
  });

  it.each(["nspawn", "nspawn-nix"])("masks /proc/keys and /proc/key-users on the %s runtime: the agent reads nothing there", async (runtime) => {
    const name = runtime === "nspawn" ? "keysh" : "keysn";
    const up = await host.run(["up", name, "-t", "basic", "--runtime", runtime, "-w", host.workspace(name)]);
    expect(up.exitCode, up.stderr).toBe(0);
    // cat succeeds (an empty file is what a program expecting /proc/keys can cope with) and prints nothing.
    expect(await host.sh(name, "id -u; cat /proc/keys; echo keys-read; cat /proc/key-users; echo users-read")).toBe(`${agentUid}\nkeys-read\nusers-read\n`);
    expect((await host.run(["down", name])).exitCode).toBe(0);
  });
});
