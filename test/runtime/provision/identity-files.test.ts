import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { identityHomeFiles } from "../../../runtime/provision/identity-files.js";

/** The agent's git identity as a file in its home, read back by the real git. */
describe("the identity files of an agent's home", () => {
  it("are read back by git exactly, quotes, backslashes and comment characters included", () => {
    const home = mkdtempSync(join(tmpdir(), "forage-identity-"));
    try {
      const name = 'Ann "A" Lee \\ #1; ok';
      writeFileSync(
        join(home, ".gitconfig"),
        identityHomeFiles({ gitUser: name, gitEmail: "ann@example.org" })[".gitconfig"] ?? "",
      );
      const read = (key: string): string =>
        execFileSync("git", ["config", "--global", key], {
          env: { HOME: home, PATH: "/usr/bin:/bin" },
          encoding: "utf8",
        }).trim();
      expect(read("user.name")).toBe(name);
      expect(read("user.email")).toBe("ann@example.org");
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("give jj the same identity as TOML strings, and nothing without an identity", () => {
    expect(identityHomeFiles({ gitEmail: 'a"b@example.org' })[".config/jj/config.toml"]).toBe(
      '[user]\nemail = "a\\"b@example.org"\n',
    );
    expect(identityHomeFiles({})).toEqual({});
  });
});
