import { describe, expect, it } from "vitest";
import { gatewayRequest, shownCommand } from "../../../cli/gateway/gateway-request.js";
import { UserError } from "../../../runtime/core/errors.js";
import { runCli, stackFrame } from "../run-cli.js";

/** The refusal gatewayRequest throws for `original` (failing the test if it accepts it). */
function refusal(original: string, argument?: string): UserError {
  try {
    gatewayRequest(original, argument);
  } catch (error) {
    if (error instanceof UserError) return error;
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(original)}`);
}

describe("the gateway's reading of SSH_ORIGINAL_COMMAND", () => {
  it("opens the picker when the client sent no command, or an empty one", () => {
    expect(gatewayRequest(undefined, undefined)).toEqual({ kind: "pick" });
    expect(gatewayRequest("", undefined)).toEqual({ kind: "pick" });
  });

  it("attaches to the one sandbox the command names, at the contract's limits too", () => {
    expect(gatewayRequest("myproj", undefined)).toEqual({ kind: "attach", name: "myproj" });
    expect(gatewayRequest("0", undefined)).toEqual({ kind: "attach", name: "0" });
    const longest = `a${"-".repeat(62)}`;
    expect(gatewayRequest(longest, undefined)).toEqual({ kind: "attach", name: longest });
  });

  const hostile: [string, string][] = [
    ["shell metacharacters", "myproj; rm -rf /"],
    ["a pipe", "myproj|sh"],
    ["command substitution", "$(id)"],
    ["backticks", "`id`"],
    ["a redirection", "myproj>/etc/passwd"],
    ["a second word", "myproj extra"],
    ["a leading space", " myproj"],
    ["a trailing newline", "myproj\n"],
    ["a newline and a second command", "myproj\nid"],
    ["a tab", "myproj\tx"],
    ["a NUL byte", "myproj\u0000x"],
    ["legacy scp", "scp -t /tmp"],
    ["scp's source side", "scp -f /etc/shadow"],
    ["rsync", "rsync --server -vlogDtpre.iLsfxC . /tmp"],
    ["the sftp server by path", "/usr/lib/openssh/sftp-server"],
    ["a path", "../etc"],
    ["an option", "-oProxyCommand=sh"],
    ["a name with a capital", "MyProj"],
    ["a name with an underscore", "my_proj"],
    ["a name that starts with '-'", "-myproj"],
    ["a name over 63 characters", "a".repeat(64)],
    ["non-ASCII letters", "myprój"],
    ["a terminal escape", "\u001b]0;owned\u0007"],
    ["a whole flood", "x ".repeat(100_000)],
  ];
  it.each(hostile)("refuses %s with a usage error, never running it", (_, command) => {
    const error = refusal(command);
    expect(error.kind).toBe("usage");
    expect(error.message).toMatch(/^gateway: refused the command ".*"…? ?: it /s);
  });

  it("says a second word is one too many, and what the login does instead", () => {
    expect(refusal("myproj extra").message).toBe(
      `gateway: refused the command "myproj extra": it has more than one word: send one sandbox name, or nothing for the picker. This login only attaches to sandboxes: ssh -t USER@HOST NAME (a-z, 0-9, '-'), or ssh -t USER@HOST for the picker`,
    );
  });

  it("keeps the refusal on one printable line, whatever the command held", () => {
    for (const [, command] of hostile) {
      const { message } = refusal(command);
      expect(message).not.toMatch(/[\u0000-\u001f\u007f]/);
      expect(message.length).toBeLessThan(400);
    }
  });

  it("with a name on its own command line, attaches only there, whatever the client asks", () => {
    expect(gatewayRequest(undefined, "pinned")).toEqual({ kind: "attach", name: "pinned" });
    expect(gatewayRequest("pinned", "pinned")).toEqual({ kind: "attach", name: "pinned" });
    expect(refusal("other", "pinned").message).toMatch(
      /"other": it is not pinned, the only sandbox this login may attach to/,
    );
    expect(() => gatewayRequest(undefined, "Not A Name")).toThrow(
      /refused the command "Not A Name": it is not a sandbox name/,
    );
  });
});

describe("how a refused command is shown", () => {
  it("escapes control characters, quotes and backslashes, and cuts it at 60 characters", () => {
    expect(shownCommand("a\u001b[2Jb")).toBe('"a\\x1b[2Jb"');
    expect(shownCommand('say "hi"\\')).toBe('"say \\"hi\\"\\\\"');
    expect(shownCommand("é")).toBe('"\\xe9"');
    expect(shownCommand("x".repeat(61))).toBe(`"${"x".repeat(60)}"…`);
  });
});

describe("forage-ctl gateway, run as sshd's ForceCommand would", () => {
  it("refuses a hostile command in one line with exit 64, before anything else (no daemon, no terminal needed)", async () => {
    const result = await runCli(["gateway"], { env: { SSH_ORIGINAL_COMMAND: "myproj;id>/tmp/owned" } });
    expect(result.exitCode).toBe(64);
    expect(result.stderr).toMatch(
      /^forage-ctl: .*gateway: refused the command "myproj;id>\/tmp\/owned": it is not a sandbox name\./,
    );
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).not.toMatch(stackFrame);
  });

  it("tells a session without a terminal to use ssh -t", async () => {
    const result = await runCli(["gateway"], { env: { SSH_ORIGINAL_COMMAND: "myproj" } });
    expect(result.exitCode).toBe(64);
    expect(result.stderr).toMatch(/no terminal: connect with ssh -t/);
  });

  it("documents itself in --help", async () => {
    const result = await runCli(["gateway", "--help"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/ssh -t forage@host myproj/);
    expect(result.stdout).toMatch(/SSH_ORIGINAL_COMMAND/);
  });
});
