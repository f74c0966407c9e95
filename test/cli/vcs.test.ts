import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { quoted } from "../../cli/commands/vcs.js";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { cliPath, runCli } from "./run-cli.js";

const tools = toolsAvailable("git", "setpriv");
const nobody = 65534;

describe("vcs-check and git: looking at a workspace without running its configuration", () => {
  it.each(["vcs-check", "git"])("`%s --help` exits 0 with its usage and exit statuses", async (command) => {
    const result = await runCli([command, "--help"]);
    expect([result.exitCode, result.stderr]).toEqual([0, ""]);
    expect(result.stdout).toMatch(new RegExp(`^Usage: forage-ctl ${command} `));
    expect(result.stdout).toMatch(/exit status/i);
  });

  it("shows the workspace's text as data: quoted, invisible and direction-changing characters escaped", () => {
    expect(quoted('touch x #\n"\u202e\u200b\u00a0\u0301')).toBe('"touch x #\\u000a\\"\\u202e\\u200b\\u00a0\\u0301"');
    expect(quoted("x".repeat(100))).toBe(`"${"x".repeat(80)}…"`);
  });

  describe.skipIf(!tools.run || !isRoot())("on a repository the user owns", () => {
    const dir = mkdtempSync(join(tmpdir(), "forage-vcs-cli-"));
    const ws = join(dir, "ws");
    const marker = join(dir, "ran");
    /** git as the user (HOME of their own, so no global config of the runner's is read). */
    const asUser = (args: string[], cwd = ws) =>
      execa("setpriv", ["--reuid", String(nobody), "--regid", String(nobody), "--clear-groups", ...args], {
        cwd,
        extendEnv: false,
        reject: false,
        env: {
          HOME: dir,
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          GIT_AUTHOR_NAME: "A",
          GIT_AUTHOR_EMAIL: "a@x",
          GIT_COMMITTER_NAME: "A",
          GIT_COMMITTER_EMAIL: "a@x",
        },
      });

    beforeAll(async () => {
      chmodSync(dir, 0o755);
      mkdirSync(ws);
      writeFileSync(join(ws, "README.md"), "hi\n");
      await execa("chown", ["-R", `${nobody}:${nobody}`, dir]);
      for (const args of [
        ["init", "-q", "-b", "main"],
        ["add", "-A"],
        ["commit", "-q", "-m", "one"],
      ])
        await asUser(["git", ...args]);
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("vcs-check exits 0 and says so when nothing can run a program", async () => {
      const result = await runCli(["vcs-check", ws]);
      expect([result.exitCode, result.stdout]).toEqual([0, `${ws}: nothing in 1 repositories can run a program\n`]);
    });

    it("as the user: vcs-check lists a nested repository's fsmonitor (exit 1); git runs status without it; plain git runs it (the control)", async () => {
      mkdirSync(join(ws, "nested"));
      await execa("chown", [`${nobody}:${nobody}`, join(ws, "nested")]);
      await asUser(["git", "init", "-q"], join(ws, "nested"));
      await asUser(["git", "config", "core.fsmonitor", `touch ${marker} #`], join(ws, "nested"));
      writeFileSync(join(ws, "nested/f"), "x\n");
      await execa("chown", [`${nobody}:${nobody}`, join(ws, "nested/f")]);
      await asUser(["git", "add", "f"], join(ws, "nested"));
      await asUser(["git", "commit", "-q", "-m", "n"], join(ws, "nested"));
      await asUser(["git", "add", "nested"]);
      rmSync(marker, { force: true });
      const check = await asUser([process.execPath, cliPath, "vcs-check", "."]);
      expect(check.exitCode).toBe(1);
      expect(check.stdout).toMatch(/^nested +git +core\.fsmonitor +"touch .* #" +nested\/\.git\/config /m);
      const safe = await asUser([process.execPath, cliPath, "git", ".", "--", "status", "--short"]);
      expect([safe.exitCode, safe.stdout]).toEqual([0, "A  nested"]);
      expect(existsSync(marker)).toBe(false);
      await asUser(["git", "status", "--short"]);
      expect(existsSync(marker)).toBe(true);
    });

    it("as root, refuses a folder root owns (git never runs as root where an agent wrote), exit 64", async () => {
      const mine = mkdtempSync(join(tmpdir(), "forage-vcs-root-"));
      try {
        const result = await runCli(["git", mine, "--", "status"]);
        expect([result.exitCode, result.stderr]).toEqual([
          64,
          `forage-ctl: ${mine} belongs to root: run this as the user whose workspace it is, never as root there\n`,
        ]);
      } finally {
        rmSync(mine, { recursive: true, force: true });
      }
    });
  });
});
