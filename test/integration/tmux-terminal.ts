import { existsSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";

/**
 * A real terminal for a test to use as a person would: a private tmux server (its own socket,
 * no user config) with one window running a program, keys sent with send-keys, the screen read
 * with capture-pane. The program is wrapped so that its exit status is printed on the screen
 * when it ends ("[exited N]") and the window stays for the test to read.
 */
export class TmuxTerminal {
  readonly socket: string;

  constructor(dir: string) {
    this.socket = join(dir, "tmux.sock");
  }

  private tmux(args: string[]): Promise<{ stdout: string }> {
    return execa("tmux", ["-f", "/dev/null", "-S", this.socket, ...args]);
  }

  /** Starts `argv` in a fresh 120x40 window (any earlier one is closed), with exactly `env`. */
  async start(argv: string[], env: Record<string, string>, cwd: string): Promise<void> {
    await this.stop();
    const environment = Object.entries(env).flatMap(([key, value]) => ["-e", `${key}=${value}`]);
    // "$@" is argv as given: nothing of it is parsed by the shell.
    const wrapper = ["sh", "-c", '"$@"; echo "[exited $?]"; exec sleep 3600', "sh", ...argv];
    await this.tmux([
      "new-session",
      "-d",
      "-s",
      "pick",
      "-x",
      "120",
      "-y",
      "40",
      "-c",
      cwd,
      ...environment,
      "--",
      ...wrapper,
    ]);
  }

  /** The screen as it is now, one line per row (trailing blanks trimmed). */
  async screen(): Promise<string> {
    return (await this.tmux(["capture-pane", "-p", "-t", "pick"])).stdout;
  }

  /**
   * Polls the screen until `expected` (text, pattern or test) is on it, then returns the screen;
   * fails after `timeoutMs` with what the screen showed last.
   */
  async waitFor(expected: string | RegExp | ((screen: string) => boolean), timeoutMs = 20_000): Promise<string> {
    const matches = (screen: string): boolean =>
      typeof expected === "string"
        ? screen.includes(expected)
        : expected instanceof RegExp
          ? expected.test(screen)
          : expected(screen);
    const deadline = Date.now() + timeoutMs;
    let last = "";
    while (Date.now() < deadline) {
      last = await this.screen();
      if (matches(last)) return last;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`the screen did not show ${String(expected)} within ${timeoutMs} ms; it showed:\n${last}`);
  }

  /** Keys by tmux's names (Enter, Escape, Tab, Down, C-u, or a character). */
  async keys(...keys: string[]): Promise<void> {
    await this.tmux(["send-keys", "-t", "pick", ...keys]);
  }

  /** Text typed as is (-l: no key names). */
  async type(text: string): Promise<void> {
    await this.tmux(["send-keys", "-t", "pick", "-l", text]);
  }

  /**
   * Closes the window and the server (the program in it gets SIGHUP), and waits until the server
   * is gone (it removes its socket): a session started while it is still exiting fails.
   */
  async stop(): Promise<void> {
    await this.tmux(["kill-server"]).catch(() => undefined);
    for (let i = 0; i < 50 && existsSync(this.socket); i++) await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
