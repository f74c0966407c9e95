import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { hostGitIdentity } from "../../runtime/provision/host-vcs-identity.js";
import { isRoot, toolsAvailable } from "../support/tools.js";

const tools = toolsAvailable("git");

describe.skipIf(!tools.run)("the host user's git identity (lowest precedence)", () => {
  const homes: string[] = [];
  const home = (): string => {
    const dir = mkdtempSync(join(tmpdir(), "forage-home-"));
    homes.push(dir);
    return dir;
  };
  afterEach(() => homes.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const me = (dir: string): { home: string; uid: number; gid: number } => ({
    home: dir,
    uid: process.getuid?.() ?? 0,
    gid: process.getgid?.() ?? 0,
  });

  it.skipIf(!isRoot())("reads the files as the user: a file only root can read gives nothing", async () => {
    const dir = home();
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, ".gitconfig"), "[user]\n\tname = Root Only\n", { mode: 0o600 });
    expect(await hostGitIdentity({ home: dir, uid: 65534, gid: 65534 })).toEqual({});
    chmodSync(join(dir, ".gitconfig"), 0o644);
    expect(await hostGitIdentity({ home: dir, uid: 65534, gid: 65534 })).toEqual({ gitUser: "Root Only" });
  });

  it("reads user.name and user.email from ~/.gitconfig", async () => {
    const dir = home();
    writeFileSync(join(dir, ".gitconfig"), "[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n");
    expect(await hostGitIdentity(me(dir))).toEqual({ gitUser: "Ada Lovelace", gitEmail: "ada@example.com" });
  });

  it("falls back to ~/.config/git/config", async () => {
    const dir = home();
    mkdirSync(join(dir, ".config/git"), { recursive: true });
    writeFileSync(join(dir, ".config/git/config"), "[user]\n\temail = xdg@example.com\n");
    expect(await hostGitIdentity(me(dir))).toEqual({ gitEmail: "xdg@example.com" });
  });

  it("takes each key from ~/.gitconfig first, the other from ~/.config/git/config", async () => {
    const dir = home();
    mkdirSync(join(dir, ".config/git"), { recursive: true });
    writeFileSync(join(dir, ".gitconfig"), "[user]\n\tname = First Name\n\tname = Home Name\n");
    writeFileSync(join(dir, ".config/git/config"), "[user]\n\tname = Xdg Name\n\temail = xdg@example.com\n");
    expect(await hostGitIdentity(me(dir))).toEqual({ gitUser: "Home Name", gitEmail: "xdg@example.com" });
  });

  it("ignores values the config schema would refuse, and does not follow includes", async () => {
    const dir = home();
    writeFileSync(join(dir, "other"), "[user]\n\temail = included@example.com\n");
    writeFileSync(
      join(dir, ".gitconfig"),
      `[include]\n\tpath = ${join(dir, "other")}\n[user]\n\tname = Eve <root@localhost>\n`,
    );
    expect(await hostGitIdentity(me(dir))).toEqual({});
  });

  it("is empty for a home without git config", async () => {
    expect(await hostGitIdentity(me(home()))).toEqual({});
  });
});
