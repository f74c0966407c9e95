import { describe, expect, it } from "vitest";
import { tomlKeys } from "../../../runtime/workspaces/toml-keys.js";
import { jjRiskOf } from "../../../runtime/workspaces/vcs-risks.js";

describe("the keys a jj config file sets (for listing, never for reading values)", () => {
  it("reads tables, dotted and quoted keys, inline tables and array tables", () => {
    const text = [
      "# a comment",
      'ui.pager = "less -FRX"',
      "[merge-tools.evil]",
      'program = "sh"',
      'merge-args = ["-c", "touch x"]',
      '[fix.tools."my fixer"]',
      'command = ["sh", "-c", "id"]',
      "[aliases]",
      'x = ["util", "exec", "--", "sh"]',
      "[[--scope]]",
      '--when.repositories = ["~/oss"]',
      "[--scope.ui]",
      'editor = "vim"',
      'signing = { behavior = "own", backends = { ssh = { program = "evil" } } }',
    ].join("\n");
    expect(tomlKeys(text).map((entry) => entry.key)).toEqual([
      "ui.pager",
      "merge-tools.evil.program",
      "merge-tools.evil.merge-args",
      "fix.tools.my fixer.command",
      "aliases.x",
      "--scope.--when.repositories",
      "--scope.ui.editor",
      "--scope.ui.signing",
      "--scope.ui.signing.behavior",
      "--scope.ui.signing.backends",
      "--scope.ui.signing.backends.ssh",
      "--scope.ui.signing.backends.ssh.program",
    ]);
  });

  it("reads a multi-line string or array as one value, and keeps a line it cannot read as a key of its own", () => {
    const keys = tomlKeys(
      '[ui]\npager = """\nnot = a key\n"""\neditor = [\n  "sh",\n  "-c", "x = 1",\n]\n???\n[user]\nname = "A"',
    );
    expect(keys.map((entry) => entry.key)).toEqual(["ui.pager", "ui.editor", "ui.(unreadable line 9)", "user.name"]);
  });

  it("finds the settings that run a program, a scope's too, and passes the rest", () => {
    const risky = [
      "ui.pager",
      "ui.diff-editor",
      "merge-tools.x.program",
      "fix.tools.a.command",
      "aliases.x",
      "signing.backend",
      "git.executable-path",
      "--scope.ui.editor",
    ];
    for (const key of risky) expect([key, jjRiskOf(key) !== undefined]).toEqual([key, true]);
    for (const key of ["user.name", "user.email", "revset-aliases.mine", "ui.color", "snapshot.max-new-file-size"])
      expect([key, jjRiskOf(key)]).toEqual([key, undefined]);
  });
});
