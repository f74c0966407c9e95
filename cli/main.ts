#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Command, CommanderError } from "commander";
import { registerCommands } from "./command-registry.js";
import { ExitCode } from "./exit-codes.js";
import { packageRoot } from "../runtime/core/package-root.js";
import { unknownCommand } from "./unknown-command.js";
import { UserError, type UserErrorKind } from "../runtime/core/errors.js";

/** The exit code of each kind of user error (ARCHITECTURE.md, "Contracts kept stable"). */
const exitCodes: Record<UserErrorKind, number> = {
  general: ExitCode.general,
  "not-found": ExitCode.sandboxNotFound,
  "template-not-found": ExitCode.templateNotFound,
  "no-slot": ExitCode.noFreeSlot,
  container: ExitCode.containerFailed,
  config: ExitCode.config,
  vcs: ExitCode.vcs,
  attach: ExitCode.attach,
  usage: ExitCode.usage,
};

async function buildProgram(argv: string[]): Promise<Command> {
  const { version } = JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version: string };
  const program = new Command("forage-ctl")
    .description("Disposable, network-restricted sandboxes for AI coding agents")
    .version(version, "-V, --version")
    .option("-c, --config <file>", "config (.ts, .yaml, .json) or generated forage.json; default: see Config below")
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();
  program.addHelpText(
    "after",
    `
Config: --config, else $FORAGE_CONFIG, else the first of ./forage.config.ts, ./forage.yaml and
./forage.json in this directory, else /etc/forage/forage.json (what the NixOS module installs).
generate and template add read a config of yours only, never a generated forage.json.

Exit codes: 0 ok, 1 general, 2 sandbox not found, 3 template not found, 4 no free slot,
5 container operation failed, 6 config error, 7 VCS error, 8 ssh/attach error, 64 usage, 70 bug.`,
  );
  await registerCommands(program, argv.slice(2));
  for (const command of program.commands) command.exitOverride();
  const unknown = unknownCommand(program, argv.slice(2));
  if (unknown !== undefined) {
    const guess = unknown.nearest.length === 0 ? "" : `: did you mean ${unknown.nearest.join(" or ")}?`;
    throw new UserError(`unknown command '${unknown.word}'${guess} (run forage-ctl --help for the commands)`, "usage");
  }
  return program;
}

async function main(argv: string[]): Promise<number> {
  try {
    await (await buildProgram(argv)).parseAsync(argv);
    return typeof process.exitCode === "number" ? process.exitCode : ExitCode.ok;
  } catch (error) {
    return reportError(error);
  }
}

/** User errors print one clean message; anything else is a bug and says so (exit 70). */
function reportError(error: unknown): number {
  if (error instanceof CommanderError) {
    // Commander already printed help, the version, or the usage problem.
    if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return ExitCode.ok;
    // `commander.help` is a bare `forage-ctl` with no command: help was printed, but it is a usage error.
    return ExitCode.usage;
  }
  if (error instanceof UserError) {
    process.stderr.write(error.report("forage-ctl"));
    return exitCodes[error.kind];
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(
    `forage-ctl: internal error (this is a bug; please report it with the output below)\n${detail}\n`,
  );
  return ExitCode.internal;
}

// A reader that stops early (`forage-ctl ps | head`) is not an error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});
process.exitCode = await main(process.argv);
