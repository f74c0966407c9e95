import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { TestHost } from "./harness.js";

/* The daemon runs the config's health monitor (monitor.enable) by itself. */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "tmux");

describe.skipIf(!tools.run || !isRoot())("the daemon's health monitor", () => {
  const host = new TestHost("10.227", "nobody", "monitor: { enable: true, interval: 5, autoRestart: true }\n");
  afterAll(() => host.cleanup());

  it("restores a sandbox's agent session within one interval, with nobody watching", async () => {
    // `up` as root starts the daemon for this host, and with it the monitor.
    expect((await host.run(["up", "watched", "-t", "basic", "-w", host.workspace("watched")])).exitCode).toBe(0);
    expect(existsSync(join(host.env.FORAGE_RUN_DIR ?? "", "daemon.sock"))).toBe(true);
    await host.sh("watched", "tmux kill-server");
    let windows = "";
    for (let i = 0; i < 40 && windows !== "helper\n"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      windows = (
        await host.run(["exec", "watched", "--", "tmux", "list-windows", "-t", "forage", "-F", "#{window_name}"])
      ).stdout;
    }
    expect(windows).toBe("helper\n");
    const events = (await host.run(["audit-log", "watched", "--json"])).stdout;
    expect(events).toContain("health: agent session is gone");
  }, 30_000);
});
