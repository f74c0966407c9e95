import { randomBytes } from "node:crypto";
import { constants } from "node:os";
import { resolve } from "node:path";
import type { Command } from "commander";
import { dropUndefined } from "../../generator/lib/drop-undefined.js";
import type { RelayedSignal } from "../../runtime/core/relayed-signals.js";
import { networkModeHelp, networkModeOption } from "../network-mode-option.js";
import { operationsOf } from "../operations.js";
import { relayThisProcessSignals } from "../relayed-signals.js";
import { upSandbox } from "../up-sandbox.js";
import { warn } from "../warn.js";
import { runInside } from "./inside.js";

/**
 * `run`: one command in a sandbox of its own around a directory (the current one), the way
 * `srt COMMAND` runs one. stdin, stdout, stderr, the terminal and the signals forage-ctl gets go
 * through as for `exec`, the command's exit status is forage-ctl's, and the sandbox is removed
 * when the command ends (the directory stays, with what the command wrote there).
 */
export function registerRun(program: Command): void {
  program
    .command("run")
    .description(
      "Run one command in a new sandbox around the current directory, then remove the sandbox (the directory stays)",
    )
    .argument("<command...>", "command and arguments (put -- before them)")
    .option("-t, --template <template>", "template to create it from (see forage-ctl templates)", "default")
    .option("-w, --workspace <dir>", "directory mounted at /workspace instead of the current one")
    .option("--network <mode>", networkModeHelp)
    .option("--runtime <runtime>", "runtime to use (see forage-ctl runtime)")
    .addHelpText(
      "after",
      [
        "",
        "The sandbox is named run-<random> while it runs (forage-ctl ps lists it) and is removed when the",
        "command ends, also when forage-ctl is interrupted: C-c goes to the command, which decides.",
        "Exit status: the command's; when the sandbox cannot be made, forage-ctl's own (see up).",
        "",
        "Examples:",
        "  forage-ctl run -- npm test",
        "  forage-ctl run -t claude --network none -- claude -p 'explain this repository'",
        "  git diff | forage-ctl run -- wc -l",
      ].join("\n"),
    )
    .action(
      async (
        command: string[],
        options: { template: string; workspace?: string; network?: string; runtime?: string },
      ) => {
        const network = networkModeOption(options.network);
        const name = `run-${randomBytes(4).toString("hex")}`;
        // A signal while the sandbox is made (by the daemon, which a dead client would not stop)
        // is held: the command is then not started, and the sandbox goes.
        const early = relayThisProcessSignals();
        let interrupted: RelayedSignal | undefined;
        early.onSignal((signal) => (interrupted ??= signal));
        try {
          await upSandbox(program, {
            name,
            template: options.template,
            workspace: resolve(options.workspace ?? process.cwd()),
            muxConfig: false,
            ...dropUndefined({ network, runtime: options.runtime }),
          });
        } finally {
          early.restore();
        }
        try {
          process.exitCode =
            interrupted === undefined
              ? await runInside(program, name, command, false)
              : 128 + constants.signals[interrupted];
        } finally {
          await removeRun(program, name);
        }
      },
    );
}

/**
 * Removes the run's sandbox; a signal meanwhile waits for it (a second C-c would otherwise leave
 * the sandbox behind). Said, not thrown, when it fails: the command's exit status stands.
 */
async function removeRun(program: Command, name: string): Promise<void> {
  const held = relayThisProcessSignals();
  try {
    await (await operationsOf(program, { preferDaemon: true })).down({ name, grace: 2 });
  } catch (error) {
    warn(
      `could not remove the run's sandbox ${name} (${error instanceof Error ? error.message : String(error)}): forage-ctl down ${name}`,
    );
  } finally {
    held.restore();
  }
}
