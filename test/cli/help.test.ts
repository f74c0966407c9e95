import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot, runCli, stackFrame } from "./run-cli.js";

const commands = ["init", "validate", "generate", "templates", "template", "schema"];

describe("forage-ctl --help", () => {
  it("exits 0 and lists every command", async () => {
    const result = await runCli(["--help"]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.stdout).toMatch(/^Usage: forage-ctl /);
    for (const command of commands) expect(result.stdout).toMatch(new RegExp(`^  ${command}\\b`, "m"));
  });

  it("says in one readable line what --config takes, and where the default comes from in its own paragraph", async () => {
    const result = await runCli(["--help"]);
    const option = /^ {2}-c, --config <file> +(.*(?:\n {20,}.*)*)/m.exec(result.stdout)?.[1]?.replace(/\s+/g, " ");
    expect(option).toBe("config (.ts, .yaml, .json) or generated forage.json; default: see Config below");
    expect(result.stdout.replace(/\n/g, " ")).toContain(
      "Config: --config, else $FORAGE_CONFIG, else the first of ./forage.config.ts, ./forage.yaml and ./forage.json in this directory, else /etc/forage/forage.json",
    );
  });

  it("documents the exit codes", async () => {
    const result = await runCli(["--help"]);
    expect(result.stdout).toContain("6 config error");
    expect(result.stdout).toContain("64 usage");
  });

  it.each(["init", "validate", "generate", "templates", "template", "template add", "schema"])(
    "`%s --help` exits 0 with the command's usage",
    async (command) => {
      const words = command.split(" ");
      const result = await runCli([...words, "--help"]);
      expect(result.exitCode).toBe(0);
      expect(result.stderr).toBe("");
      expect(result.stdout).toMatch(new RegExp(`^Usage: forage-ctl ${command} `));
    },
  );

  it("`template add --help` shows the required --from option", async () => {
    const result = await runCli(["template", "add", "--help"]);
    expect(result.stdout).toMatch(/--from <template>/);
  });
});

describe("forage-ctl --version", () => {
  it("prints package.json's version and exits 0", async () => {
    const { version } = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string };
    const result = await runCli(["--version"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(`${version}\n`);
    expect(result.stderr).toBe("");
  });
});

describe("usage errors", () => {
  it("an unknown command exits 64 with a usage message on stderr", async () => {
    const result = await runCli(["frobnicate"]);
    expect(result.exitCode).toBe(64);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/unknown command 'frobnicate'/);
    expect(result.stderr).toMatch(/--help/);
    expect(result.stderr).not.toMatch(stackFrame);
  });

  it.each([
    [["attch", "demo"], "attach"],
    [["sattus", "demo"], "status"],
    [["snapshot", "creat", "demo"], "snapshot create"],
  ])("an unknown command suggests the nearest one and exits 64: %s", async (args, meant) => {
    const result = await runCli(args);
    expect(result).toEqual({
      exitCode: 64,
      stdout: "",
      stderr: `forage-ctl: unknown command '${args.at(-2) ?? ""}': did you mean ${meant}? (run forage-ctl --help for the commands)\n`,
    });
  });

  it("an unknown command near no command suggests none", async () => {
    const result = await runCli(["frobnicate"]);
    expect(result.stderr).toBe("forage-ctl: unknown command 'frobnicate' (run forage-ctl --help for the commands)\n");
  });

  it.each([
    ["nosuch", "--help"],
    ["--config", "x.yaml", "nosuch", "--help"],
    ["snapshot", "nosuch", "--help"],
    ["template", "nosuch"],
  ])("an unknown command exits 64 wherever it appears, --help or not: %s", async (...args) => {
    const result = await runCli(args);
    expect(result.exitCode).toBe(64);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/unknown command 'nosuch'/);
  });

  it("control: a known subcommand's --help still exits 0 with its usage", async () => {
    const result = await runCli(["snapshot", "create", "--help"]);
    expect(result).toMatchObject({ exitCode: 0, stderr: "" });
    expect(result.stdout).toMatch(/^Usage: forage-ctl snapshot create /);
  });

  it("an unknown global option exits 64 with a usage message on stderr", async () => {
    const result = await runCli(["--frobnicate"]);
    expect(result.exitCode).toBe(64);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/unknown option '--frobnicate'/);
    expect(result.stderr).toMatch(/--help/);
  });

  it("an unknown option of a subcommand exits 64 with a usage message on stderr", async () => {
    const result = await runCli(["validate", "--frobnicate"]);
    expect(result.exitCode).toBe(64);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/unknown option '--frobnicate'/);
  });

  it("a missing required option exits 64", async () => {
    const result = await runCli(["template", "add", "extra"]);
    expect(result.exitCode).toBe(64);
    expect(result.stderr).toMatch(/--from/);
    expect(result.stdout).toBe("");
  });

  it("a missing option argument exits 64", async () => {
    const result = await runCli(["validate", "--config"]);
    expect(result.exitCode).toBe(64);
    expect(result.stderr).toMatch(/argument missing/);
  });
});
