import { copyFileSync, existsSync, mkdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { cliPath, makeTempDir, removeTempDir, runCli } from "./run-cli.js";

/*
 * `forage-ctl service` on this machine, where systemd is not PID 1: install writes and enables
 * the unit (into FORAGE_SYSTEMD_UNIT_DIR, not /etc/systemd/system) and says nothing was started;
 * the unit is checked by the real `systemd-analyze verify`. What needs a running systemd (the
 * restart, `is-active`) cannot run here.
 */
const tools = toolsAvailable("systemd-analyze");
const systemdIsPid1 = existsSync("/run/systemd/system");

describe.skipIf(!tools.run || !isRoot() || systemdIsPid1)("forage-ctl service", () => {
  let dir = "";
  let units = "";
  let config = "";
  const env = (): Record<string, string> => ({ FORAGE_SYSTEMD_UNIT_DIR: units });

  beforeAll(async () => {
    dir = await makeTempDir();
    units = join(dir, "units");
    config = join(dir, "forage.yaml");
    writeFileSync(
      config,
      "user: nobody\ntemplates:\n  shell:\n    agents:\n      helper: { package: bashInteractive, executable: bash }\n    network: none\n",
      { mode: 0o644 },
    );
  });
  afterAll(async () => {
    await removeTempDir(dir);
  });

  /** `systemd-analyze verify` of a unit: its stderr (empty when systemd has nothing to say) and exit code. */
  const verify = async (unitText: string, name = "forage.service"): Promise<{ exitCode: number; stderr: string }> => {
    const checked = join(dir, "verify");
    mkdirSync(checked, { recursive: true });
    writeFileSync(join(checked, name), unitText);
    const result = await execa("systemd-analyze", ["verify", join(checked, name)], { reject: false, cwd: checked });
    return { exitCode: result.exitCode ?? -1, stderr: String(result.stderr) };
  };

  it("prints a unit that systemd-analyze verify accepts without a word, even with a space, a % specifier and $ in node's path", async () => {
    const odd = join(dir, "node dir 50%h $x");
    mkdirSync(odd);
    copyFileSync(process.execPath, join(odd, "node"));
    await execa("chmod", ["755", join(odd, "node")]);
    const unit = await execa(join(odd, "node"), [cliPath, "--config", config, "service", "unit"], { reject: false });
    expect(unit.exitCode, unit.stderr).toBe(0);
    expect(unit.stdout).toContain(`ExecStart="${odd.replaceAll("%", "%%")}/node"`);
    expect(await verify(unit.stdout)).toEqual({ exitCode: 0, stderr: "" });
    // Controls: unquoted (the space splits it), or %h left a specifier (it becomes a home), it is not a program systemd finds.
    for (const program of [`${odd}/node`, `"${odd}/node"`]) {
      const wrong = unit.stdout.replace(/^ExecStart=.*$/m, `ExecStart=${program} ${cliPath} daemon`);
      expect((await verify(wrong)).exitCode).not.toBe(0);
    }
  });

  it("installs the unit enabled for boot into another root's directory, says that nothing was started here, and --json says the same", async () => {
    const result = await runCli(["--config", config, "service", "install"], { env: env() });
    expect(result.exitCode, result.stderr).toBe(0);
    const unit = join(units, "forage.service");
    expect(result.stdout).toContain(
      `installed ${unit} (settings ${config}).\n${units} is another root's unit directory (FORAGE_SYSTEMD_UNIT_DIR), so nothing was started`,
    );
    expect(statSync(unit).mode & 0o777).toBe(0o644);
    // Relative, as it must be in a root staged elsewhere that boots later.
    expect(readlinkSync(join(units, "multi-user.target.wants/forage.service"))).toBe("../forage.service");
    expect(readFileSync(join(units, "multi-user.target.wants/forage.service"), "utf8")).toBe(
      readFileSync(unit, "utf8"),
    );
    const printed = await runCli(["--config", config, "service", "unit"]);
    expect(readFileSync(unit, "utf8")).toBe(printed.stdout);
    expect(readFileSync(unit, "utf8")).toContain(`Environment="FORAGE_CONFIG=${config}"`);
    expect(await verify(readFileSync(unit, "utf8"))).toEqual({ exitCode: 0, stderr: "" });

    const again = await runCli(["--config", config, "service", "install", "--gateway-user", "gw", "--json"], {
      env: env(),
    });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({
      unit,
      enabledBy: join(units, "multi-user.target.wants/forage.service"),
      settings: config,
      replaced: true,
      systemd: "not running",
      active: null,
    });
    expect(readFileSync(unit, "utf8")).toContain('Environment="FORAGE_GATEWAY_USER=gw"');
  });

  it("installs nothing for settings that do not load: the daemon would fail at every start", async () => {
    const broken = join(dir, "broken.yaml");
    writeFileSync(broken, "user: nobody\ntemplates:\n  shell:\n    agents: 3\n");
    const elsewhere = join(dir, "units-broken");
    const result = await runCli(["--config", broken, "service", "install"], {
      env: { FORAGE_SYSTEMD_UNIT_DIR: elsewhere },
    });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain(broken);
    expect(result.stderr).toMatch(/agents/);
    expect(existsSync(elsewhere)).toBe(false);
  });

  it("warns when someone but root can write the settings file: they would have the daemon's reach", async () => {
    const owned = join(dir, "owned.yaml");
    copyFileSync(config, owned);
    await execa("chown", ["nobody", owned]);
    const result = await runCli(["--config", owned, "service", "install"], {
      env: { FORAGE_SYSTEMD_UNIT_DIR: join(dir, "units-owned") },
    });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /warning: .*owned\.yaml can be written by uid 65534 \(its owner\): whoever can write it has the daemon's reach/,
    );
    // Root's own file, written by root alone: nothing to say.
    const quiet = await runCli(["--config", config, "service", "install"], { env: env() });
    expect(quiet.stderr).not.toContain("warning");
  });

  it("is refused to a user who is not root, before anything is written", async () => {
    const elsewhere = join(dir, "units-user");
    const result = await execa(process.execPath, [cliPath, "--config", config, "service", "install"], {
      uid: 65534,
      gid: 65534,
      reject: false,
      extendEnv: false,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/", FORAGE_SYSTEMD_UNIT_DIR: elsewhere },
    });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain("service install writes");
    expect(result.stderr).toContain("run it with sudo");
    expect(existsSync(elsewhere)).toBe(false);
  });

  it("uninstalls: both files go, and a second uninstall says there is nothing to remove", async () => {
    const result = await runCli(["service", "uninstall"], { env: env() });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      `removed ${join(units, "multi-user.target.wants/forage.service")} and ${join(units, "forage.service")}`,
    );
    expect(existsSync(join(units, "forage.service"))).toBe(false);
    const again = await runCli(["service", "uninstall", "--json"], { env: env() });
    expect(JSON.parse(again.stdout)).toEqual({ removed: [], systemd: "not running" });
  });
});
