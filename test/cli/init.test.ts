import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { rootWithoutLoginSession, toolsAvailable } from "../support/tools.js";
import { cliPath, makeTempDir, removeTempDir, runCli, stackFrame } from "./run-cli.js";

/**
 * init falls through to its last sources (a terminal, else refusal) only when run as root with no
 * login session of another user: the test runner's own session would otherwise be the answer.
 */
const noUserSource = rootWithoutLoginSession();
const script = toolsAvailable("script");

let dir: string;
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  await removeTempDir(dir);
});

describe("forage-ctl init", () => {
  it("writes forage.config.ts in an empty directory, says whose it is, and what to run next", async () => {
    const result = await runCli(["init", "--user", "alice"], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe("");
    const sudo = process.getuid?.() === 0 ? "" : "sudo ";
    expect(result.stdout.split("\n").slice(0, 6)).toEqual([
      'wrote forage.config.ts (user "alice", from --user)',
      `Next, in this directory (forage-ctl finds ./forage.config.ts here)${sudo === "" ? "" : "; sandbox commands with sudo, since the daemon never loads a user's config"}:`,
      "  forage-ctl validate",
      `  ${sudo}forage-ctl up demo -t default -w DIR   # DIR: an existing directory owned by "alice", mounted at /workspace`,
      `  ${sudo}forage-ctl exec demo -- id`,
      `  ${sudo}forage-ctl down demo`,
    ]);
    expect(result.stdout).toContain(
      'Template "claude" runs Claude Code. It needs its key in /run/secrets/anthropic-api-key, and either the program\nclaude in /usr/bin or /usr/local/bin',
    );
    expect(await readdir(dir)).toEqual(["forage.config.ts"]);
  });

  it("names the file in the next steps when it is not ./forage.config.ts (sandbox commands would not find it)", async () => {
    const result = await runCli(["init", "--user", "alice", "--out", "sandboxes.ts"], { cwd: dir });
    expect(result.stdout).toMatch(/^ {2}forage-ctl --config sandboxes\.ts validate$/m);
    expect(result.stdout).toMatch(/^ {2}(sudo )?forage-ctl --config sandboxes\.ts up demo -t default -w DIR /m);
  });

  it('writes a config that passes validate (its `import from "forage"` resolves to forage-ctl itself)', async () => {
    await runCli(["init", "--user", "alice"], { cwd: dir });
    const text = await readFile(join(dir, "forage.config.ts"), "utf8");
    expect(text).toContain('from "forage"');
    const result = await runCli(["validate"], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("forage.config.ts: valid (2 templates: claude, default)\n");
    expect(result.stderr).toBe("");
  });

  it("writes a config that generate compiles", async () => {
    await runCli(["init", "--user", "alice"], { cwd: dir });
    const result = await runCli(["generate", "-o", "out"], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe("");
  });

  it("puts the given user into the config, a first template that runs on any host, and the Claude template", async () => {
    await runCli(["init", "--user", "alice", "--template", "work"], { cwd: dir });
    const result = await runCli(["templates", "--json"], { cwd: dir });
    expect(JSON.parse(result.stdout)).toEqual([
      expect.objectContaining({
        name: "claude",
        agents: ["claude"],
        network: "restricted",
        allow: ["api.anthropic.com"],
      }),
      expect.objectContaining({ name: "work", agents: ["shell"], network: "none", allow: [] }),
    ]);
    const text = await readFile(join(dir, "forage.config.ts"), "utf8");
    expect(text).toMatch(/^ {2}user: "alice",$/m);
    // The host's bash: what a host-root sandbox can run without Nix or secrets.
    expect(text).toContain('shell: { package: "bashInteractive", executable: "bash" },');
  });

  it("defaults the user to $SUDO_USER", async () => {
    const result = await runCli(["init"], { cwd: dir, env: { SUDO_USER: "bob" } });
    expect(result.stdout).toMatch(/^wrote forage\.config\.ts \(user "bob", from \$SUDO_USER\)$/m);
    expect(await readFile(join(dir, "forage.config.ts"), "utf8")).toMatch(/^ {2}user: "bob",$/m);
  });

  it("never writes user root: --user root is refused with exit 64, writing nothing", async () => {
    const result = await runCli(["init", "--user", "root"], { cwd: dir });
    expect(result.exitCode).toBe(64);
    expect(result.stderr).toBe(
      'forage-ctl: --user: "root" is root: agents never run as root; give the host user who owns your workspaces\n',
    );
    expect(await readdir(dir)).toEqual([]);
  });

  it.skipIf(!noUserSource)(
    "as root with no sudo, no login session and no terminal, refuses with exit 64 and says to pass --user",
    async () => {
      const result = await runCli(["init"], { cwd: dir, env: { SUDO_USER: "root" } });
      expect(result.exitCode).toBe(64);
      expect(result.stderr).toBe(
        "forage-ctl: init: cannot tell which host user owns your workspaces (no --user, no $SUDO_USER, no login session, no terminal to ask on): pass --user NAME, the host user who owns your workspaces (agents get its UID/GID; never root)\n",
      );
      expect(result.stdout).toBe("");
      expect(await readdir(dir)).toEqual([]);
    },
  );

  it.skipIf(!noUserSource || !script.run)(
    "with nothing else to go on, asks on a terminal until it gets a user who exists and is not root",
    async () => {
      // `script` gives init a terminal, as a person typing would have; "root" is refused, "nobody" taken.
      // The command is a constant; node and the CLI arrive in the environment.
      const result = await execa("script", ["-qec", 'exec "$NODE" "$CLI" init', "/dev/null"], {
        cwd: dir,
        input: "root\nnobody\n",
        reject: false,
        timeout: 30_000,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", SHELL: "/bin/sh", NODE: process.execPath, CLI: cliPath },
        extendEnv: false,
      });
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toContain(
        '"root" is root: agents never run as root; give the host user who owns your workspaces.',
      );
      expect(result.stdout).toContain('wrote forage.config.ts (user "nobody", from your answer)');
      expect(await readFile(join(dir, "forage.config.ts"), "utf8")).toMatch(/^ {2}user: "nobody",$/m);
    },
  );

  it("with --agent codex writes a Codex template that validates", async () => {
    const result = await runCli(["init", "--user", "alice", "--agent", "codex"], { cwd: dir });
    expect(result.exitCode).toBe(0);
    const text = await readFile(join(dir, "forage.config.ts"), "utf8");
    expect(text).toContain('package: "codex"');
    expect(text).toContain('authEnvVar: "OPENAI_API_KEY"');
    const templates = await runCli(["templates", "--json"], { cwd: dir });
    expect(templates.exitCode).toBe(0);
    expect(JSON.parse(templates.stdout)).toEqual([
      expect.objectContaining({ name: "codex", agents: ["codex"], allow: ["api.openai.com"] }),
      expect.objectContaining({ name: "default", agents: ["shell"] }),
    ]);
  });

  it("refuses a first template named like the agent's template, with exit 64", async () => {
    const result = await runCli(["init", "--user", "alice", "--template", "claude"], { cwd: dir });
    expect(result.exitCode).toBe(64);
    expect(result.stderr).toBe(
      'forage-ctl: --template: "claude" is the name of the Claude Code template; choose another name for the first template\n',
    );
    expect(await readdir(dir)).toEqual([]);
  });

  it("writes to the file named by --out", async () => {
    const result = await runCli(["init", "--user", "alice", "--out", "sandboxes.ts"], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(await readdir(dir)).toEqual(["sandboxes.ts"]);
    expect((await runCli(["validate", "sandboxes.ts"], { cwd: dir })).exitCode).toBe(0);
  });

  it("run again without --force, exits non-zero and leaves the existing file as it was", async () => {
    await writeFile(join(dir, "forage.config.ts"), "// mine\n");
    const result = await runCli(["init", "--user", "alice"], { cwd: dir });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe("forage-ctl: forage.config.ts already exists; pass --force to overwrite it\n");
    expect(result.stdout).toBe("");
    expect(await readFile(join(dir, "forage.config.ts"), "utf8")).toBe("// mine\n");
  });

  it("with --force overwrites the existing file", async () => {
    await writeFile(join(dir, "forage.config.ts"), "// mine\n");
    const result = await runCli(["init", "--user", "alice", "--force"], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(await readFile(join(dir, "forage.config.ts"), "utf8")).toContain("defineConfig");
  });

  it("refuses a user name that is not a Unix user name with exit 64, writing nothing", async () => {
    const result = await runCli(["init", "--user", 'bad"name'], { cwd: dir });
    expect(result.exitCode).toBe(64);
    expect(result.stderr).toBe('forage-ctl: --user: "bad"name" is not a valid Unix user name\n');
    expect(result.stderr).not.toMatch(stackFrame);
    expect(await readdir(dir)).toEqual([]);
  });

  it("refuses an invalid template name with exit 64, writing nothing", async () => {
    const result = await runCli(["init", "--user", "alice", "--template", "Not Valid"], { cwd: dir });
    expect(result.exitCode).toBe(64);
    expect(result.stderr).toMatch(/^forage-ctl: --template: "Not Valid" must be 1-32 characters/);
    expect(await readdir(dir)).toEqual([]);
  });

  it("refuses an unknown agent with exit 64, naming the known ones", async () => {
    const result = await runCli(["init", "--user", "alice", "--agent", "clippy"], { cwd: dir });
    expect(result.exitCode).toBe(64);
    expect(result.stderr).toMatch(
      /--agent: unknown agent "clippy"; choose one of claude, codex, gemini, aider, opencode/,
    );
    expect(await readdir(dir)).toEqual([]);
  });
});

describe.skipIf(process.getuid?.() !== 0)("sudo forage-ctl init (root, $SUDO_USER the person who typed it)", () => {
  it("writes a config the invoking user owns, since they edit it", async () => {
    const result = await runCli(["init"], { cwd: dir, env: { SUDO_USER: "nobody" } });
    expect(result).toMatchObject({ exitCode: 0, stderr: "" });
    const file = await stat(join(dir, "forage.config.ts"));
    expect([file.uid, file.gid, file.mode & 0o777]).toEqual([65534, 65534, 0o644]);
  });

  it("prints the next steps as that user types them: validate as is, sandbox commands with sudo", async () => {
    const result = await runCli(["init"], { cwd: dir, env: { SUDO_USER: "nobody" } });
    expect(result.stdout.split("\n").slice(1, 6)).toEqual([
      "Next, in this directory (forage-ctl finds ./forage.config.ts here); sandbox commands with sudo, since the daemon never loads a user's config:",
      "  forage-ctl validate",
      '  sudo forage-ctl up demo -t default -w DIR   # DIR: an existing directory owned by "nobody", mounted at /workspace',
      "  sudo forage-ctl exec demo -- id",
      "  sudo forage-ctl down demo",
    ]);
  });

  it("leaves the file root's when $SUDO_USER is no user of this host, and still says sudo", async () => {
    const result = await runCli(["init"], { cwd: dir, env: { SUDO_USER: "bob" } });
    expect(result.exitCode).toBe(0);
    expect((await stat(join(dir, "forage.config.ts"))).uid).toBe(0);
    expect(result.stdout).toMatch(/^ {2}sudo forage-ctl up demo /m);
  });
});

describe("init's comment on subscription logins agrees with the README", () => {
  it.each([
    ["claude", "token", "`claude setup-token` on the host, then `forage-ctl auth set claude`"],
    ["codex", "oauth", "`codex login` on the host, then `forage-ctl auth set codex < ~/.codex/auth.json`"],
    [
      "gemini",
      "oauth",
      "log in with `gemini` on the host, then `forage-ctl auth set gemini < ~/.gemini/oauth_creds.json`",
    ],
  ])(
    "--agent %s offers `login: %s` (not hostConfigDir), and the config validates cleanly with it",
    async (agent, kind, store) => {
      await runCli(["init", "--user", "alice", "--agent", agent], { cwd: dir });
      const text = await readFile(join(dir, "forage.config.ts"), "utf8");
      expect(text).not.toContain("hostConfigDir");
      expect(text).toContain(`// ${store}.\n          // login: "${kind}", // instead of secretName and authEnvVar\n`);
      // Done as the comment says: secretName, authEnvVar and the secret replaced by the login line.
      const withLogin = text
        .split("\n")
        .filter((line) => !/^\s+(secretName|authEnvVar|"[a-z-]+-api-key"): /.test(line))
        .join("\n")
        .replace(`// login: "${kind}", // instead of secretName and authEnvVar`, `login: "${kind}",`);
      await writeFile(join(dir, "forage.config.ts"), withLogin);
      expect(await runCli(["validate"], { cwd: dir })).toEqual({
        exitCode: 0,
        stdout: `forage.config.ts: valid (2 templates: ${[agent, "default"].sort().join(", ")})\n`,
        stderr: "",
      });
    },
  );

  it("--agent aider, whose login Forage does not keep, offers none", async () => {
    await runCli(["init", "--user", "alice", "--agent", "aider"], { cwd: dir });
    expect(await readFile(join(dir, "forage.config.ts"), "utf8")).not.toMatch(/login|hostConfigDir/);
  });
});
