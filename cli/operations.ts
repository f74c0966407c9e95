import type { Command } from "commander";
import type { Operations } from "../runtime/api/operations.js";
import { remoteOperations } from "../runtime/daemon/client.js";
import { runtimeContext } from "./runtime-context.js";

const warn = (message: string): void => void process.stderr.write(`forage-ctl: warning: ${message}\n`);

/**
 * Where sandbox commands run: in this process when forage-ctl runs as root (it can do the
 * privileged work itself), otherwise through the daemon's socket (no sudo rules needed).
 */
export async function operationsFor(configOption: string | undefined): Promise<Operations> {
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  if (!isRoot) return remoteOperations(warn);
  const { localOperations } = await import("../runtime/api/local-operations.js");
  return localOperations(await runtimeContext(configOption));
}

/** operationsFor with the program's global --config: what every sandbox command starts from. */
export function operationsOf(program: Command): Promise<Operations> {
  return operationsFor(program.opts<{ config?: string }>().config);
}
