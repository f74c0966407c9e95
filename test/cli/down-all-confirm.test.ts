import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { runtimePaths } from "../../runtime/core/paths.js";
import { writeMetadata } from "../../runtime/state/metadata-store.js";
import { TmuxTerminal } from "../integration/tmux-terminal.js";
import { sandboxMetadata } from "../support/sandbox-metadata.js";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { cliPath, runCli } from "./run-cli.js";

/*
 * `forage-ctl down --all` as root in-process (no daemon) on stopped sandboxes of this file's own
 * state directory: on a terminal (a real one, tmux) it lists what it removes and asks; --yes
 * removes without asking; with neither a terminal nor --yes it refuses (exit 64) and removes nothing.
 */
const tmux = toolsAvailable("tmux");
const config = "user: nobody\ntemplates:\n  basic:\n    agents: { sh: { package: bash, executable: bash } }\n";

describe.skipIf(!isRoot())("down --all asks before it removes every sandbox", () => {
  const dir = mkdtempSync(join(tmpdir(), "forage-down-all-"));
  const file = join(dir, "forage.yaml");
  const env = {
    FORAGE_STATE_DIR: join(dir, "state"),
    FORAGE_RUN_DIR: join(dir, "run"),
    FORAGE_SECRETS_DIR: join(dir, "secrets"),
  };
  const paths = runtimePaths(env.FORAGE_STATE_DIR, env);
  const terminal = new TmuxTerminal(dir);
  const names = ["alpha", "beta"];

  beforeEach(async () => {
    writeFileSync(file, config);
    for (const [index, name] of names.entries()) {
      mkdirSync(join(dir, name), { recursive: true });
      await writeMetadata(
        paths,
        sandboxMetadata({ name, template: "basic", slot: 20 + index, hostPath: join(dir, name) }),
      );
    }
  });
  afterEach(() => terminal.stop());
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const recorded = (name: string): boolean => existsSync(join(paths.sandboxesDir, `${name}.json`));
  /** down --all on a tmux terminal, with exactly the test's environment. */
  const onTerminal = (...more: string[]) =>
    terminal.start(
      [process.execPath, cliPath, "--config", file, "down", "--all", "-t", "1", ...more],
      { ...env, PATH: process.env.PATH ?? "/usr/bin:/bin", TERM: "xterm" },
      dir,
    );

  it("refuses without a terminal and without --yes (exit 64), saying to pass --yes, and removes nothing", async () => {
    const result = await runCli(["--config", file, "down", "--all"], { env });
    expect(result).toEqual({
      exitCode: 64,
      stdout: "",
      stderr:
        "forage-ctl: down --all removes every sandbox and asks first, and there is no terminal to ask on (stdin is not one): pass --yes to remove them without asking\n",
    });
    expect(names.map(recorded)).toEqual([true, true]);
  });

  it.skipIf(!tmux.run)(
    "on a terminal lists every sandbox with what goes with it, asks, and on no removes nothing",
    async () => {
      await onTerminal();
      const screen = await terminal.waitFor("Remove them? [y/N]");
      expect(screen).toContain("down --all removes 2 sandboxes:");
      expect(screen).toMatch(new RegExp(`^ {2}alpha +template basic, stopped, directory ${dir}/alpha kept$`, "m"));
      expect(screen).toMatch(/^ {2}beta +template basic, stopped, directory .*\/beta kept$/m);
      await terminal.type("n");
      await terminal.keys("Enter");
      expect(await terminal.waitFor("[exited 0]")).toContain("nothing removed");
      expect(names.map(recorded)).toEqual([true, true]);
    },
  );

  it.skipIf(!tmux.run)("on a terminal removes them all once answered yes", async () => {
    await onTerminal();
    await terminal.waitFor("Remove them? [y/N]");
    await terminal.type("y");
    await terminal.keys("Enter");
    const screen = await terminal.waitFor(/\[exited \d+\]/);
    expect(screen).toContain("removed alpha\nremoved beta\n[exited 0]");
    expect(names.map(recorded)).toEqual([false, false]);
  });

  it("with --yes removes every sandbox without asking, also with no terminal", async () => {
    const result = await runCli(["--config", file, "down", "--all", "--yes", "-t", "1"], { env });
    expect(result).toMatchObject({ exitCode: 0, stdout: "removed alpha\nremoved beta\n" });
    expect(names.map(recorded)).toEqual([false, false]);
  });

  it("with nothing to remove says so and exits 0", async () => {
    await runCli(["--config", file, "down", "--all", "--yes", "-t", "1"], { env });
    const result = await runCli(["--config", file, "down", "--all", "--yes"], { env });
    expect(result).toMatchObject({ exitCode: 0, stdout: "no sandboxes to remove\n" });
  });

  it("refuses --yes without --all: down NAME does not ask", async () => {
    const result = await runCli(["--config", file, "down", "alpha", "--yes"], { env });
    expect([result.exitCode, result.stderr]).toEqual([
      64,
      "forage-ctl: --yes goes with --all (down NAME does not ask)\n",
    ]);
    expect(recorded("alpha")).toBe(true);
  });
});
