import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { TestHost } from "./harness.js";

/*
 * The host user's ~/.tmux.conf reaches the sandbox read-only (the reference mounts it too), and
 * --no-mux-config leaves it out. Needs a real host user with a home: one is created for the test.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "useradd", "userdel");
const user = "forage-it-mux";

describe.skipIf(!tools.run || !isRoot())("the host user's tmux configuration", () => {
  const host = new TestHost("10.228", user);
  let uid = 0;
  beforeAll(() => {
    const home = join(host.dir, "home");
    execFileSync("useradd", ["--system", "--no-create-home", "--home-dir", home, "--shell", "/usr/sbin/nologin", user]);
    uid = Number(execFileSync("id", ["-u", user], { encoding: "utf8" }).trim());
    mkdirSync(home);
    chmodSync(host.dir, 0o755);
    writeFileSync(join(home, ".tmux.conf"), "set -g history-limit 4242\n");
    chownSync(home, uid, uid);
    // Owned by the user, so only the read-only mount can stop the agent from writing it.
    chownSync(join(home, ".tmux.conf"), uid, uid);
  });
  afterAll(async () => {
    await host.cleanup();
    execFileSync("userdel", [user]);
  });

  const workspace = (name: string): string => {
    const dir = join(host.dir, name);
    mkdirSync(dir);
    chownSync(dir, uid, uid);
    return dir;
  };

  it("mounts it read-only at the agent's ~/.tmux.conf by default", async () => {
    expect((await host.run(["up", "mux", "-t", "basic", "-w", workspace("mux")])).exitCode).toBe(0);
    expect(await host.sh("mux", "cat ~/.tmux.conf")).toBe("set -g history-limit 4242\n");
    expect(await host.sh("mux", "(echo x >> ~/.tmux.conf) 2>&1 || true")).toContain("Read-only file system");
    expect(await host.sh("mux", "cat ~/.tmux.conf")).toBe("set -g history-limit 4242\n");
  });

  it("leaves it out with --no-mux-config, and refuses an unknown --runtime", async () => {
    expect((await host.run(["up", "nomux", "-t", "basic", "-w", workspace("nomux"), "--no-mux-config"])).exitCode).toBe(
      0,
    );
    expect(await host.sh("nomux", "test -e ~/.tmux.conf && echo present || echo absent")).toBe("absent\n");
    const runtime = await host.run(["up", "rt", "-t", "basic", "-w", workspace("rt"), "--runtime", "docker"]);
    expect(runtime.exitCode).toBe(64);
    expect(runtime.stderr).toContain('runtime "docker" is not available');
  });
});
