import type { Command } from "commander";
import type { Request } from "../runtime/api/calls.js";
import type { UpResult } from "../runtime/api/sandbox-view.js";
import { formatTimings } from "./format-timings.js";
import { operationsOf } from "./operations.js";
import { callersAgentSocket } from "./callers-agent-socket.js";
import { dropUndefined } from "../generator/lib/drop-undefined.js";
import { warnIfNotProxied } from "./proxy-served.js";
import { warn } from "./warn.js";

/**
 * Creates and starts a sandbox the way `forage-ctl up` does, for `up` itself and for `pick`'s
 * wizard: each step on stderr when it is a terminal; as root, a daemon serving the same settings
 * does it, else the settings are loaded first (a broken config stops here) and a daemon is started
 * for the user's later commands. This shell's SSH agent goes along (see callersAgentSocket).
 */
export async function upSandbox(program: Command, request: Request<"up">): Promise<UpResult> {
  const progress = process.stderr.isTTY ? (step: string) => void process.stderr.write(`  ${step}…\n`) : undefined;
  const withAgent = dropUndefined({ ...request, sshAuthSock: request.sshAuthSock ?? callersAgentSocket() });
  const operations = await operationsOf(program, { startDaemon: { progress }, preferDaemon: true });
  const sandbox = await operations.up(withAgent, progress);
  if (sandbox.timings !== undefined) process.stderr.write(formatTimings(sandbox.timings));
  await warnIfNotProxied(operations, sandbox, warn);
  return sandbox;
}

/** What `up` prints once a sandbox is up: where it is and how to reach it. */
export function upSummary(sandbox: UpResult): string {
  const vcs = sandbox.workspaceVcs === null ? "" : ` ${sandbox.workspaceVcs}`;
  return (
    `sandbox ${sandbox.name} is up (template ${sandbox.template}, ${sandbox.address}, workspace ${sandbox.workspace}, ${sandbox.workspaceMode}${vcs})\n` +
    `  attach:  forage-ctl attach ${sandbox.name}\n  run:     forage-ctl exec ${sandbox.name} -- COMMAND\n  remove:  forage-ctl down ${sandbox.name}\n`
  );
}
