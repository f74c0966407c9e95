import { realpath, stat } from "node:fs/promises";
import type { Command } from "commander";
import { UserError } from "../../runtime/core/errors.js";
import {
  installService,
  systemdRunning,
  uninstallService,
  unitDirectory,
  unitName,
} from "../../runtime/service/install-service.js";
import { renderUnit, shippedUnit, shippedUnitPath, type UnitFill } from "../../runtime/service/systemd-unit.js";
import { loadSettings } from "../../runtime/settings/load-settings.js";
import { settingsFile } from "../../runtime/settings/settings-file.js";
import { printConfigNotes, printJson } from "../output.js";
import { warn } from "../warn.js";

export function registerService(program: Command): void {
  const service = program
    .command("service")
    .description("Run the daemon as a systemd service on a distribution without the NixOS module (Debian, Ubuntu…)")
    .addHelpText(
      "after",
      `
The unit is the one the project ships (${shippedUnitPath()}), with this machine's node, this
forage-ctl and the settings file filled in (--config, else FORAGE_CONFIG, else a config in the
current directory, else /etc/forage/forage.json). Install it again after moving the checkout or
changing which settings file the daemon serves. On NixOS use the module (services.forage) instead.

  sudo forage-ctl service install     write ${unitDirectory()}/${unitName}, enable it, start it
  forage-ctl service unit             print that unit without installing it
  sudo forage-ctl service uninstall   stop and remove it (sandboxes keep running)

Where systemd is not running (a container, a chroot), install writes and enables the unit for
the next boot with systemd and says so; until then \`sudo forage-ctl up\` starts a daemon itself.`,
    );

  service
    .command("install")
    .description("Install, enable and start the daemon's systemd unit (root)")
    .option(
      "--gateway-user <name>",
      "the daemon also serves the SSH gateway's account (forage-ctl daemon --gateway-user)",
    )
    .option("--json", "print what was done as JSON")
    .action(async (options: { gatewayUser?: string; json?: boolean }) => {
      requireRoot("service install");
      const fill = await fillFor(program, options.gatewayUser, true);
      const progress = (step: string): void => void process.stderr.write(`  ${step}\n`);
      const done = await installService(fill, progress);
      if (options.json === true) {
        // Scripts hear what people hear: a daemon that does not answer is a failure.
        if (done.active === false) process.exitCode = 1;
        return printJson(done);
      }
      if (done.systemd === "not running") {
        const why =
          unitDirectory() === "/etc/systemd/system"
            ? "systemd is not running on this machine (no /run/systemd/system)"
            : `${unitDirectory()} is another root's unit directory (FORAGE_SYSTEMD_UNIT_DIR)`;
        return void process.stdout.write(
          `installed ${done.unit} (settings ${done.settings}).\n` +
            `${why}, so nothing was started: the unit starts the daemon at that root's next boot\n` +
            "with systemd. Until then `sudo forage-ctl daemon` runs it, or `sudo forage-ctl up` starts one itself.\n",
        );
      }
      if (!done.active)
        throw new UserError(
          `${done.unit} is installed but the daemon is not running: see \`journalctl -u forage\``,
          "general",
        );
      process.stdout.write(
        `installed and started ${done.unit} (settings ${done.settings}); \`systemctl status forage\` shows it\n`,
      );
    });

  service
    .command("unit")
    .description("Print the daemon's systemd unit as install would write it")
    .option("--gateway-user <name>", "the daemon also serves the SSH gateway's account")
    .action(async (options: { gatewayUser?: string }) => {
      process.stdout.write(renderUnit(await shippedUnit(), await fillFor(program, options.gatewayUser, false)));
    });

  service
    .command("uninstall")
    .description("Stop the daemon's service and remove its unit (sandboxes keep running) (root)")
    .option("--json", "print what was removed as JSON")
    .action(async (options: { json?: boolean }) => {
      requireRoot("service uninstall");
      const progress = (step: string): void => void process.stderr.write(`  ${step}\n`);
      const done = await uninstallService(progress);
      if (options.json === true) return printJson(done);
      if (done.removed.length === 0)
        return void process.stdout.write(`no ${unitName} is installed in ${unitDirectory()}: nothing to remove\n`);
      const after = systemdRunning() ? "" : " (systemd is not running here: nothing was running under it)";
      process.stdout.write(`removed ${done.removed.join(" and ")}${after}\n`);
    });
}

function requireRoot(command: string): void {
  if (typeof process.getuid === "function" && process.getuid() !== 0) {
    throw new UserError(`${command} writes ${unitDirectory()} and runs systemctl: run it with sudo`, "general");
  }
}

/**
 * This machine's ExecStart (this node, this CLI with links resolved: the unit must not follow a
 * link someone re-points) and the settings file, checked first (`install` only): a unit whose
 * daemon cannot load its settings would fail at every start.
 */
async function fillFor(program: Command, gatewayUser: string | undefined, check: boolean): Promise<UnitFill> {
  const file = await settingsFile(program.opts<{ config?: string }>().config);
  if (check) {
    printConfigNotes((await loadSettings(file)).notes);
    await warnIfOthersWrite(file.path);
  }
  const cli = await realpath(process.argv[1] ?? "");
  return {
    execStart: [process.execPath, cli, "daemon"],
    settings: file.path,
    ...(gatewayUser === undefined ? {} : { gatewayUser }),
  };
}

/** Whoever can write the settings file has the daemon's reach (README: "Edits to the settings file"). */
async function warnIfOthersWrite(path: string): Promise<void> {
  const info = await stat(path);
  const writers = [
    info.uid !== 0 ? `uid ${info.uid} (its owner)` : "",
    (info.mode & 0o020) !== 0 ? `group ${info.gid}` : "",
    (info.mode & 0o002) !== 0 ? "everyone" : "",
  ].filter(Boolean);
  if (writers.length === 0) return;
  warn(
    `${path} can be written by ${writers.join(", ")}: whoever can write it has the daemon's reach (README: "Edits to the settings file"); on a machine you share, make it root's`,
  );
}
