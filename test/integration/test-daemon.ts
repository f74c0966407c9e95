import { existsSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, expect } from "vitest";
import { chmodSync } from "node:fs";
import { cliPath, repoRoot } from "../cli/run-cli.js";
import { agentUid, type CliRun, type TestHost } from "./harness.js";

/**
 * Starts `forage-ctl daemon` for a test host and waits until it says it listens: that line comes
 * after the socket's owner and mode are set. `exited` settles when it ends (after --stop).
 */
export async function startTestDaemon(
  host: TestHost,
  config = host.config,
): Promise<{ exited: Promise<unknown>; log: () => string }> {
  const child = execa(process.execPath, [cliPath, "--config", config, "daemon"], {
    cwd: repoRoot,
    env: host.env,
    extendEnv: false,
    reject: false,
  });
  let log = "";
  child.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  // A TypeScript config takes a second or two to load cold.
  for (let i = 0; i < 200 && !log.includes("listening on"); i++)
    await new Promise((resolve) => setTimeout(resolve, 50));
  expect(log).toContain("listening on");
  expect(existsSync(join(host.env.FORAGE_RUN_DIR ?? "", "daemon.sock"))).toBe(true);
  return { exited: child, log: () => log };
}

/**
 * A daemon for a test file's host: started before its tests (the host's directory traversable,
 * like /run), stopped with the host after them. `restart` starts it afresh with the file as it is.
 */
export function daemonForTests(host: TestHost, config = (): string => host.config): { restart(): Promise<void> } {
  let exited: Promise<unknown> | undefined;
  const stop = async (): Promise<void> => {
    await host.run(["daemon", "--stop"]);
    await exited;
  };
  const start = async (): Promise<void> => void (exited = (await startTestDaemon(host, config())).exited);
  beforeAll(async () => {
    chmodSync(host.dir, 0o711);
    await start();
  });
  afterAll(async () => {
    await stop();
    await host.cleanup();
  });
  return { restart: async () => (await stop(), await start()) };
}

/** forage-ctl as `uid` (the configured user's by default) with the user's group and no others, without sudo: through the daemon's socket. */
export async function runAsUser(host: TestHost, args: string[], uid = agentUid): Promise<CliRun> {
  const result = await execa(
    "setpriv",
    [`--reuid=${uid}`, `--regid=${agentUid}`, "--clear-groups", "--", process.execPath, cliPath, ...args],
    {
      cwd: repoRoot,
      env: { PATH: "/usr/bin:/bin", FORAGE_RUN_DIR: host.env.FORAGE_RUN_DIR ?? "" },
      extendEnv: false,
      reject: false,
      stdin: "ignore",
    },
  );
  return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
}
