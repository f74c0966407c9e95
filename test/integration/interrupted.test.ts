import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { cliPath, repoRoot } from "../cli/run-cli.js";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { TestHost } from "./harness.js";

/*
 * `up` killed with SIGKILL at different moments: whatever it left behind, gc --force (or down)
 * cleans up completely, and a stopped sandbox is never treated as an orphan.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock");

async function ourNamespaces(): Promise<string[]> {
  const list = (await execa("ip", ["netns", "list"])).stdout.split("\n").map((l) => l.split(" ")[0] ?? "");
  const ours: string[] = [];
  for (const name of list.filter((n) => /^f\d+$/.test(n))) {
    if ((await execa("ip", ["-n", name, "-o", "addr"], { reject: false })).stdout.includes("10.236.")) ours.push(name);
  }
  return ours;
}

async function killedUp(host: TestHost, name: string, afterMs: number): Promise<void> {
  const child = execa(
    process.execPath,
    [cliPath, "--config", host.config, "up", name, "-t", "keyed", "-w", host.workspace(name)],
    {
      cwd: repoRoot,
      env: host.env,
      extendEnv: false,
      reject: false,
    },
  );
  await new Promise((resolve) => setTimeout(resolve, afterMs));
  child.kill("SIGKILL");
  await child;
}

describe.skipIf(!tools.run || !isRoot())("interrupted creation", () => {
  const host = new TestHost("10.236");
  afterAll(() => host.cleanup());

  it.each([150, 400, 700, 1000])(
    "cleans up everything with gc --force after up is killed at %i ms",
    async (afterMs) => {
      await killedUp(host, `k${afterMs}`, afterMs);
      const force = await host.run(["gc", "--force", "--json"]);
      expect(force.exitCode).toBe(0);
      const state = join(host.env.FORAGE_STATE_DIR ?? "", "sandboxes");
      const leftover = existsSync(state) ? readdirSync(state).filter((f) => f.endsWith(".json")) : [];
      // A killed up either left nothing, or a complete sandbox (it finished just before the kill).
      if (leftover.length > 0) {
        expect((await host.run(["status", `k${afterMs}`, "--json"])).stdout).toContain('"status"');
        expect((await host.run(["down", `k${afterMs}`, "-t", "1"])).exitCode).toBe(0);
      }
      expect(await ourNamespaces()).toEqual([]);
      const roots = join(host.env.FORAGE_RUN_DIR ?? "", "roots");
      expect(existsSync(roots) ? readdirSync(roots) : []).toEqual([]);
      expect(existsSync(join(host.env.FORAGE_SECRETS_DIR ?? "", `k${afterMs}`))).toBe(false);
      expect((await execa("pgrep", ["-f", `--directory=${host.dir}`], { reject: false })).stdout).toBe("");
      expect((await host.run(["gc", "--json"])).stdout).toContain('"orphans": []');
    },
    60_000,
  );

  it("can remove a half-created sandbox with down", async () => {
    await killedUp(host, "half", 400);
    const down = await host.run(["down", "half", "-t", "1"]);
    expect([0, 2]).toContain(down.exitCode);
    expect((await host.run(["gc", "--force"])).exitCode).toBe(0);
    expect(await ourNamespaces()).toEqual([]);
  });

  it("never treats a stopped sandbox as an orphan", async () => {
    expect((await host.run(["up", "kept", "-t", "basic", "-w", host.workspace("kept")])).exitCode).toBe(0);
    expect((await host.run(["stop", "kept", "-t", "1"])).exitCode).toBe(0);
    const dry = JSON.parse((await host.run(["gc", "--json"])).stdout) as { orphans: unknown[] };
    expect(dry.orphans).toEqual([]);
    expect((await host.run(["gc", "--force"])).exitCode).toBe(0);
    expect((await host.run(["start", "kept"])).exitCode).toBe(0);
    expect((await host.run(["down", "kept", "-t", "1"])).exitCode).toBe(0);
  });

  it("lists orphans in a dry run and removes nothing without --force", async () => {
    await killedUp(host, "dry", 600);
    const dry = JSON.parse((await host.run(["gc", "--json"])).stdout) as {
      removed: boolean;
      orphans: { kind: string }[];
    };
    expect(dry.removed).toBe(false);
    const again = JSON.parse((await host.run(["gc", "--json"])).stdout) as { orphans: unknown[] };
    expect(again.orphans).toEqual(dry.orphans);
    await host.run(["gc", "--force"]);
    await host.run(["down", "dry", "-t", "1"]);
  });
});
