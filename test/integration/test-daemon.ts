import { existsSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { expect } from "vitest";
import { cliPath, repoRoot } from "../cli/run-cli.js";
import type { TestHost } from "./harness.js";

/**
 * Starts `forage-ctl daemon` for a test host and waits until it says it listens: that line comes
 * after the socket's owner and mode are set. `exited` settles when it ends (after --stop).
 */
export async function startTestDaemon(host: TestHost): Promise<{ exited: Promise<unknown>; log: () => string }> {
  const child = execa(process.execPath, [cliPath, "--config", host.config, "daemon"], { cwd: repoRoot, env: host.env, extendEnv: false, reject: false });
  let log = "";
  child.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  for (let i = 0; i < 100 && !log.includes("listening on"); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(log).toContain("listening on");
  expect(existsSync(join(host.env.FORAGE_RUN_DIR ?? "", "daemon.sock"))).toBe(true);
  return { exited: child, log: () => log };
}
