import { openSync } from "node:fs";
import { ReadStream } from "node:tty";
import type { Command } from "commander";
import { createElement as h } from "react";
import { render } from "ink";
import { UserError } from "../../runtime/core/errors.js";
import { loadSettings } from "../../runtime/settings/load-settings.js";
import { settingsFile } from "../../runtime/settings/settings-file.js";
import { operationsOf } from "../operations.js";
import { upSandbox, upSummary } from "../up-sandbox.js";
import { PickApp, type PickAppProps, type PickChoice } from "./pick-app.js";
import { completeDirectory, expandPath, isDirectory } from "./path-completion.js";
import { isRepository, upRequestOf } from "./wizard-answers.js";
import { pendingApprovals } from "./pending-approvals.js";

/** `down`'s default grace period (seconds) before a removed sandbox's processes are killed. */
const downGrace = 10;

/**
 * `forage-ctl pick`: the picker on this terminal, then what was chosen, through the commands' own
 * code: attach as `forage-ctl attach`, a new sandbox as `forage-ctl up` (its progress printed the
 * same way) and then attach, removal as `forage-ctl down`. When up fails, the picker comes back
 * with the wizard on its summary, the answers kept and up's error under it.
 */
export async function runPick(program: Command): Promise<void> {
  const ops = await operationsOf(program, { preferDaemon: true });
  const [listed, templates, waiting] = await Promise.all([ops.list({}), templateNames(program), pendingApprovals()]);
  const cwd = process.cwd();
  const environment = {
    templates,
    expand: (typed: string) => expandPath(typed, cwd),
    isDirectory,
    isRepository,
    complete: (typed: string) => completeDirectory(typed, cwd),
  };
  const remove = async (name: string) => {
    await ops.down({ name, grace: downGrace });
    return ops.list({});
  };
  let sandboxes = listed;
  let failedUp: PickAppProps["failedUp"];
  for (;;) {
    const input = terminalInput();
    const app = render(h(PickApp, { sandboxes, environment, directory: cwd, remove, waiting, ...(failedUp === undefined ? {} : { failedUp }) }), { stdin: input });
    // ink's exit value; undefined when it was closed otherwise (Ctrl-C).
    const choice = (await app.waitUntilExit().finally(() => input.destroy())) as PickChoice | undefined;
    if (choice === undefined || choice.kind === "quit") return;
    // Imported as the command registry imports it: one chunk of the bundle, so exec loads no more than before.
    const { attachSandbox } = await import("../commands/inside.js");
    if (choice.kind === "attach") return attachSandbox(program, choice.name);
    const { answers } = choice;
    const sshKeyPath = answers.sshKeyPath.trim() === "" ? "" : expandPath(answers.sshKeyPath.trim(), cwd);
    // A failed up (which left nothing behind) goes back to the wizard with its answers and why.
    const sandbox = await upSandbox(program, upRequestOf({ ...answers, sshKeyPath }, isRepository(answers.directory))).catch((error: unknown) => {
      failedUp = { answers, error: error instanceof Error ? error.message : String(error) };
      return undefined;
    });
    if (sandbox !== undefined) {
      process.stdout.write(upSummary(sandbox));
      return attachSandbox(program, sandbox.name);
    }
    sandboxes = await ops.list({});
  }
}

/**
 * The keys for ink: a stream of its own on this terminal, not process.stdin. ink switches its
 * stream to text (setEncoding, which cannot be undone), and attach then relays process.stdin to
 * the daemon base64-encoded, which a text chunk is not: the keys arrived in the sandbox garbled.
 */
function terminalInput(): ReadStream {
  try {
    return new ReadStream(openSync("/dev/tty", "r"));
  } catch (error) {
    throw new UserError(`pick needs a controlling terminal (/dev/tty: ${(error as NodeJS.ErrnoException).code ?? String(error)})`, "usage");
  }
}

/**
 * The templates the wizard offers: those of the settings sandbox commands load (settingsFile's
 * choice). Its notes were printed already by whoever loaded them for the operations, or are the
 * daemon's to print.
 */
async function templateNames(program: Command): Promise<string[]> {
  const { settings } = await loadSettings(await settingsFile(program.opts<{ config?: string }>().config));
  return settings.templates.map((template) => template.name);
}
