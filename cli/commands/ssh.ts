import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Command } from "commander";
import { operationsOf } from "../operations.js";
import { UserError } from "../../runtime/core/errors.js";

/** The only variables ssh gets from the caller (the reference filters them too). */
const passedEnv = ["HOME", "USER", "LOGNAME", "PATH", "TERM", "LANG", "SSH_AUTH_SOCK"];

export function registerSsh(program: Command): void {
  program
    .command("ssh")
    .description(
      "Log in to a sandbox over SSH, checking its pinned host key strictly; attaches to the tmux session unless a command is given",
    )
    .argument("<name>", "sandbox (its template needs ssh: true)")
    .argument("[command...]", "command to run instead of attaching (put -- before it)")
    .option("-i, --ssh-key-path <file>", "private key to log in with")
    .action(async (name: string, command: string[], options: { sshKeyPath?: string }) => {
      const view = await (await operationsOf(program)).status({ name });
      if (view.sshHostKey === null)
        throw new UserError(
          `sandbox ${name} has no SSH (its template sets ssh: false): use forage-ctl attach ${name}`,
          "attach",
        );
      if (view.status === "stopped")
        throw new UserError(`sandbox ${name} is not running (forage-ctl start ${name})`, "container");
      const dir = await mkdtemp(join(tmpdir(), "forage-ssh-"));
      try {
        // The host key pinned at up, and nothing else: a changed key is refused.
        const knownHosts = join(dir, "known_hosts");
        await writeFile(knownHosts, `${view.address} ${view.sshHostKey}\n`, { mode: 0o600 });
        const interactive = command.length === 0;
        const args = [
          "-o",
          "StrictHostKeyChecking=yes",
          "-o",
          `UserKnownHostsFile=${knownHosts}`,
          "-o",
          "GlobalKnownHostsFile=/dev/null",
          "-o",
          "LogLevel=ERROR",
          "-o",
          "ForwardAgent=no",
          ...(options.sshKeyPath === undefined ? [] : ["-i", options.sshKeyPath, "-o", "IdentitiesOnly=yes"]),
          ...(interactive ? ["-t"] : ["-o", "BatchMode=yes"]),
          `${view.user}@${view.address}`,
          ...(interactive ? ["tmux", "attach-session", "-t", "forage"] : command),
        ];
        const env = Object.fromEntries(
          passedEnv.flatMap((key) => (process.env[key] === undefined ? [] : [[key, process.env[key]]])),
        );
        const code = await new Promise<number>((resolve, reject) => {
          const child = spawn("ssh", args, { stdio: "inherit", env });
          child.once("error", reject);
          child.once("close", (status) => resolve(status ?? 255));
        });
        // 255 is ssh's own failure (connection, authentication, host key); anything else is the command's.
        if (code === 255)
          throw new UserError(`ssh to ${name} (${view.address}) failed: see the message above`, "attach");
        process.exitCode = code;
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
}
