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
 *
 * /sys inside was the host's sysfs (nspawn mounts one of the sandbox's own network namespace only
 * when told the network is private): it named the host's interfaces, their MAC addresses, and
 * every other sandbox's link. The control is the host's own /sys, which lists those links.
 */
const tools = toolsAvailable(
  "systemd-nspawn",
  "nsenter",
  "setpriv",
  "ip",
  "flock",
  "keyctl",
  "nix-build",
  "busybox",
  "runsc",
);
/** Each runtime's sandboxes in this file (names are short: a sandbox's name is its hostname). */
const named = {
  nspawn: ["keysh", "sysh", "sysho"],
  "nspawn-nix": ["keysn", "sysn", "sysno"],
  gvisor: ["keysg", "sysg", "sysgo"],
};

describe.skipIf(!tools.run || !isRoot())("escapes through /proc/keys and /sys", () => {
  const host = new TestHost("10.212");
  const keyName = `forage-h26-${Math.random().toString(36).slice(2, 10)}`;
  /** Runs a program on the host as the agent's uid (the host user the sandboxes run as). */
  const asUser = (args: string[]) =>
    execa("setpriv", ["--reuid", String(agentUid), "--regid", String(agentUid), "--clear-groups", ...args], {
      reject: false,
    });

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

  it.each(["nspawn", "nspawn-nix", "gvisor"] as const)(
    "masks /proc/keys and /proc/key-users on the %s runtime: the agent reads nothing there",
    async (runtime) => {
      // gVisor's /proc has neither file (its kernel keeps no keys): cat fails, and prints nothing either.
      const [name = ""] = named[runtime];
      const up = await host.run(["up", name, "-t", "basic", "--runtime", runtime, "-w", host.workspace(name)]);
      expect(up.exitCode, up.stderr).toBe(0);
      // cat succeeds (an empty file is what a program expecting /proc/keys can cope with) and prints nothing.
      expect(await host.sh(name, "id -u; cat /proc/keys; echo keys-read; cat /proc/key-users; echo users-read")).toBe(
        `${agentUid}\nkeys-read\nusers-read\n`,
      );
      expect((await host.run(["down", name])).exitCode).toBe(0);
    },
  );

  it.each(["nspawn", "nspawn-nix", "gvisor"] as const)(
    "shows the agent only its sandbox's own network interfaces in /sys on the %s runtime (control: the host's /sys lists the other sandbox's link)",
    async (runtime) => {
      const [, name = "", other = ""] = named[runtime];
      for (const each of [name, other]) {
        const up = await host.run(["up", each, "-t", "basic", "--runtime", runtime, "-w", host.workspace(each)]);
        expect(up.exitCode, up.stderr).toBe(0);
      }
      const otherLink = `ve-f${await host.slotOf(other)}`;
      expect((await execa("ls", ["/sys/class/net"])).stdout.split(/\s+/)).toContain(otherLink);
      expect((await host.sh(name, "ls /sys/class/net")).split(/\s+/).filter(Boolean).sort()).toEqual(["eth0", "lo"]);
      for (const each of [name, other]) expect((await host.run(["down", each])).exitCode).toBe(0);
    },
  );
});
