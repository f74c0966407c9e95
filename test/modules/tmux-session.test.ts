import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { nixBuild, nixString, repoRoot, standInDir } from "../support/nix.js";
import { toolsAvailable } from "../support/tools.js";

/*
 * modules/lib/tmux-session.nix built with the real nix-build and run against the real tmux on a
 * private socket directory: the session the container starts for its agents.
 */
const tools = toolsAvailable("nix-build", "tmux");

function sessionScript(windows: { name: string; command: string }[], workspace: string): string {
  const list = windows.map((w) => `{ name = ${nixString(w.name)}; command = ${nixString(w.command)}; }`).join(" ");
  const expression = `
    let
      lib = import ${nixString(join(standInDir, "lib"))};
      pkgs = import ${nixString(standInDir)} { };
      forageLib = import ${nixString(join(repoRoot, "modules/lib"))} { inherit lib; };
    in forageLib.tmuxSessionScript { inherit pkgs; windows = [ ${list} ]; workspacePath = ${nixString(workspace)}; }`;
  return join(nixBuild(expression), "bin", "forage-tmux-session");
}

describe.skipIf(!tools.run)("the agent's tmux session", () => {
  let dir = "";
  let env: NodeJS.ProcessEnv = {};
  const tmux = (...args: string[]): string => execFileSync("tmux", args, { env, encoding: "utf8" });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "forage-tmux-"));
    env = { PATH: "/usr/bin:/bin", TMUX_TMPDIR: dir, HOME: dir };
  });
  afterEach(() => {
    try {
      tmux("kill-server");
    } catch {
      // already gone
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it("opens session `forage` with one window per entry, in order, each running its command in the workspace", () => {
    const script = sessionScript(
      [
        { name: "claude", command: "pwd > claude.out; sleep 30" },
        { name: "codex", command: 'echo "it\'s $((6 * 7))" > codex.out; sleep 30' },
        { name: "quits", command: "exit 3" },
      ],
      dir,
    );
    execFileSync(script, { env });
    for (let i = 0; i < 50 && !safeRead(join(dir, "codex.out")); i++) execFileSync("sleep", ["0.1"]);
    // A window whose command has exited stays open (dead pane) so the user can read its output.
    const windows = (): string[] =>
      tmux("list-windows", "-t", "forage", "-F", "#{window_name}:#{pane_dead}").trim().split("\n");
    for (let i = 0; i < 50 && windows()[2] !== "quits:1"; i++) execFileSync("sleep", ["0.1"]);
    expect(windows()).toEqual(["claude:0", "codex:0", "quits:1"]);
    expect(safeRead(join(dir, "claude.out"))).toBe(`${dir}\n`);
    expect(safeRead(join(dir, "codex.out"))).toBe("it's 42\n");
  });

  it("opens a single shell window when the template has no agents", () => {
    execFileSync(sessionScript([], dir), { env });
    expect(tmux("list-windows", "-t", "forage", "-F", "#{window_name}").trim()).toBe("shell");
  });
});

function safeRead(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
