import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { cliPath } from "../cli/run-cli.js";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { agentUid, TestHost } from "./harness.js";

/*
 * forage-ctl run: one command in a sandbox of its own around a directory, with its streams, exit
 * status and the signals forage-ctl gets passed through, and the sandbox gone when it ends.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "ip", "tmux");

describe.skipIf(!tools.run || !isRoot())("forage-ctl run", () => {
  const host = new TestHost("10.197");
  afterAll(() => host.cleanup());
  const runs = async (): Promise<string[]> =>
    (JSON.parse((await host.run(["ps", "--json"])).stdout) as { name: string }[])
      .map((sandbox) => sandbox.name)
      .filter((name) => name.startsWith("run-"));

  /** forage-ctl run started in the background, its output collected as it comes. */
  const start = (args: string[]) => {
    const child = execa(process.execPath, [cliPath, "--config", host.config, "run", ...args], {
      env: host.env,
      extendEnv: false,
      reject: false,
      stdin: "ignore",
    });
    let stdout = "";
    child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    return { child, stdout: () => stdout };
  };

  it("passes stdin, stdout and the exit status through, keeps what it wrote in the directory, and removes the sandbox", async () => {
    const dir = host.workspace("plain");
    const ran = await host.run(
      ["run", "-t", "basic", "-w", dir, "--", "sh", "-c", "wc -l; id -un; echo made > /workspace/out; exit 7"],
      "one\ntwo\n",
    );
    expect(ran.exitCode, ran.stderr).toBe(7);
    expect(ran.stdout).toBe("2\nagent\n");
    expect(readFileSync(join(dir, "out"), "utf8")).toBe("made\n");
    expect(statSync(join(dir, "out")).uid).toBe(agentUid);
    expect(await runs()).toEqual([]);
  }, 120_000);

  it.each([
    ["SIGTERM", "TERM", 42],
    ["SIGINT", "INT", 43],
  ] as const)(
    "passes %s that forage-ctl gets on to the command, whose own exit status then stands, and removes the sandbox",
    async (signal, trapped, code) => {
      const script = `trap 'echo got-${trapped}; exit ${code}' ${trapped}; echo ready; while :; do sleep 0.1; done`;
      const running = start(["-t", "basic", "-w", host.workspace(`signal-${code}`), "--", "sh", "-c", script]);
      await expect.poll(running.stdout, { timeout: 60_000, interval: 100 }).toContain("ready");
      expect(await runs()).toHaveLength(1);
      running.child.kill(signal);
      const ended = await running.child;
      expect(ended.exitCode, String(ended.stderr)).toBe(code);
      expect(running.stdout()).toBe(`ready\ngot-${trapped}\n`);
      expect(await runs()).toEqual([]);
    },
    120_000,
  );

  it("gives the sandbox the --network mode from its start instead of the template's, and refuses a mode there is none of", async () => {
    const running = start([
      "-t",
      "basic",
      "--network",
      "full",
      "-w",
      host.workspace("net"),
      "--",
      "sh",
      "-c",
      "echo ready; sleep 30",
    ]);
    await expect.poll(running.stdout, { timeout: 60_000, interval: 100 }).toContain("ready");
    const [name = ""] = await runs();
    const shown = JSON.parse((await host.run(["network", name, "--json"])).stdout) as {
      policy: { mode: string };
      templatePolicy: { mode: string };
    };
    expect(shown.policy.mode).toBe("full");
    expect(shown.templatePolicy.mode).toBe("none");
    running.child.kill("SIGTERM");
    await running.child;
    expect(await runs()).toEqual([]);

    const refused = await host.run(["run", "-t", "basic", "--network", "open", "--", "true"]);
    expect(refused.exitCode).toBe(64);
    expect(refused.stderr).toContain('--network: "open" is not one of none, restricted, full');
  }, 120_000);
});
