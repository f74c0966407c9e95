import { openSync } from "node:fs";
import { ReadStream } from "node:tty";
import type { Command } from "commander";
import { createElement as h } from "react";
import { render } from "ink";
import { UserError } from "../../runtime/core/errors.js";
import { operationsOf } from "../operations.js";
import { upSandbox, upSummary } from "../up-sandbox.js";
import { PickApp, type PickAppProps, type PickChoice, type PickerSnapshot } from "./pick-app.js";
import { completeDirectory, expandPath, isDirectory } from "./path-completion.js";
import { isRepository, upRequestOf } from "./wizard-answers.js";
import { pendingApprovals } from "./pending-approvals.js";

/** `down`'s default grace period (seconds) before a removed sandbox's processes are killed. */
const downGrace = 10;

/** How often the open list is read again: the daemon's own rounds are 2 s apart too. */
const refreshMs = 2_000;

/**
 * `forage-ctl pick`: the picker on this terminal, then what was chosen, through the commands' own
 * code: attach as `forage-ctl attach`, a new sandbox as `forage-ctl up` (its progress printed the
 * same way) and then attach, removal as `forage-ctl down`. After a detach (or an attach that
 * failed, saying why) the list comes back; q ends pick. When up fails, the picker comes back with
 * the wizard on its summary, the answers kept and up's error under it. The templates are the
 * ones of the settings the operations run with (the daemon's, for the user and the gateway's
 * account, which never load a config themselves).
 */
export async function runPick(program: Command): Promise<void> {
  const ops = await operationsOf(program, { preferDaemon: true });
  const [listed, templates, waiting] = await Promise.all([ops.list({}), ops.templates({}), pendingApprovals()]);
  const cwd = process.cwd();
  const environment = {
    templates: templates.map((template) => template.name),
    expand: (typed: string) => expandPath(typed, cwd),
    isDirectory,
    isRepository,
    complete: (typed: string) => completeDirectory(typed, cwd),
  };
  const remove = async (name: string) => {
    await ops.down({ name, grace: downGrace });
    return ops.list({});
  };
  const refresh = async (): Promise<PickerSnapshot> => {
    const [sandboxes, waiting] = await Promise.all([ops.list({}), pendingApprovals()]);
    return { sandboxes, waiting };
  };
  let shown: PickerSnapshot = { sandboxes: listed, waiting };
  let failedUp: PickAppProps["failedUp"];
  let notice: string | undefined;
  for (;;) {
    const input = terminalInput();
    const props = {
      ...shown,
      environment,
      directory: cwd,
      remove,
      refresh,
      refreshMs,
      ...(failedUp === undefined ? {} : { failedUp }),
      ...(notice === undefined ? {} : { notice }),
    };
    const app = render(h(PickApp, props), { stdin: input });
    // ink's exit value; undefined when it was closed otherwise (Ctrl-C).
    const choice = (await app.waitUntilExit().finally(() => input.destroy())) as PickChoice | undefined;
    if (choice === undefined || choice.kind === "quit") return;
    failedUp = undefined;
    notice = undefined;
    if (choice.kind === "attach") {
      notice = await attachThenBack(program, choice.name);
      shown = await refresh();
      continue;
    }
    const { answers } = choice;
    const sshKeyPath = answers.sshKeyPath.trim() === "" ? "" : expandPath(answers.sshKeyPath.trim(), cwd);
    // A failed up (which left nothing behind) goes back to the wizard with its answers and why.
    const sandbox = await upSandbox(
      program,
      upRequestOf({ ...answers, sshKeyPath }, isRepository(answers.directory)),
    ).catch((error: unknown) => {
      failedUp = { answers, error: error instanceof Error ? error.message : String(error) };
      return undefined;
    });
    if (sandbox !== undefined) {
      process.stdout.write(upSummary(sandbox));
      notice = await attachThenBack(program, sandbox.name);
    }
    shown = await refresh();
  }
}

/** Attaches as `forage-ctl attach` does; what the list then says of it (a detach, or why attaching failed). */
async function attachThenBack(program: Command, name: string): Promise<string> {
  // Imported as the command registry imports it: one chunk of the bundle, so exec loads no more than before.
  const { attachSandbox } = await import("../commands/inside.js");
  try {
    await attachSandbox(program, name);
    return `back from ${name}`;
  } catch (error) {
    if (!(error instanceof UserError)) throw error;
    return error.message;
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
    throw new UserError(
      `pick needs a controlling terminal (/dev/tty: ${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      "usage",
    );
  }
}
