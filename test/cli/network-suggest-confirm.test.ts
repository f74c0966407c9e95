import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { writeMetadata } from "../../runtime/state/metadata-store.js";
import { runtimePaths } from "../../runtime/core/paths.js";
import { sandboxMetadata } from "../support/sandbox-metadata.js";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { cliPath, repoRoot, runCli } from "./run-cli.js";

/*
 * `forage-ctl network NAME --suggest --write` through the real CLI, as root in-process (no
 * daemon), on a stopped sandbox of this file's own state directory that learned some names:
 * --write shows what it adds and asks on a terminal (`script` gives it one, as a person's shell
 * would), writes with --yes without asking, and without a terminal or --yes refuses (exit 64)
 * and leaves the config as it was.
 */
const script = toolsAvailable("script");
const config =
  "user: nobody\ntemplates:\n  learner:\n    agents: { sh: { package: bash, executable: bash } }\n    network: { mode: restricted, allow: [api.example.org] }\n";
const learned = ["pkgs.example.org", "a.cdn.example.org", "b.cdn.example.org", "c.cdn.example.org"];

describe.skipIf(!isRoot())("network --suggest --write asks before it writes", () => {
  const dir = mkdtempSync(join(tmpdir(), "forage-suggest-confirm-"));
  const file = join(dir, "forage.yaml");
  const env = {
    FORAGE_STATE_DIR: join(dir, "state"),
    FORAGE_RUN_DIR: join(dir, "run"),
    FORAGE_SECRETS_DIR: join(dir, "secrets"),
  };
  const args = ["--config", file, "network", "demo", "--suggest", "--write"];

  beforeAll(async () => {
    const paths = runtimePaths(env.FORAGE_STATE_DIR, env);
    await writeMetadata(
      paths,
      sandboxMetadata({
        name: "demo",
        template: "learner",
        slot: 9,
        hostPath: dir,
        network: { mode: "full", allow: ["api.example.org"], deny: [], sni: false, learn: true },
      }),
    );
    mkdirSync(paths.sandboxesDir, { recursive: true });
    const at = "2026-11-27T10:00:00.000Z";
    writeFileSync(
      join(paths.sandboxesDir, "demo.learned.jsonl"),
      learned
        .map((name) => `${JSON.stringify({ name, addresses: ["192.0.2.7"], first: at, last: at, count: 1 })}\n`)
        .join(""),
    );
  });
  beforeEach(() => writeFileSync(file, config));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The command on a terminal of its own (`script`), typing `typed`. */
  const onTerminal = (typed: string) =>
    // The command is a constant; node, the CLI and the config arrive in the environment.
    execa("script", ["-qec", 'exec "$NODE" "$CLI" --config "$CONFIG" network demo --suggest --write', "/dev/null"], {
      cwd: repoRoot,
      input: typed,
      reject: false,
      timeout: 30_000,
      env: {
        ...env,
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        SHELL: "/bin/sh",
        NODE: process.execPath,
        CLI: cliPath,
        CONFIG: file,
      },
      extendEnv: false,
    });

  it("refuses without a terminal to ask on and without --yes (exit 64, one line), leaving the config as it was", async () => {
    const result = await runCli(args, { env });
    expect(result.exitCode).toBe(64);
    expect(result.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(
        /--write: Add 2 entries to template "learner"'s network\.allow in .*forage\.yaml: asks first, and there is no terminal to ask on .*add --yes/,
      ),
    ]);
    expect(readFileSync(file, "utf8")).toBe(config);
  });

  it.skipIf(!script.run)(
    "shows on a terminal what it would add and asks; anything but yes writes nothing",
    async () => {
      const result = await onTerminal("n\n");
      expect(result.exitCode, String(result.stdout)).toBe(0);
      const shown = String(result.stdout);
      expect(shown).toMatch(
        /\*\.cdn\.example\.org +covers a\.cdn\.example\.org, b\.cdn\.example\.org, c\.cdn\.example\.org/,
      );
      expect(shown).toContain("pkgs.example.org");
      expect(shown).toContain(`Add 2 entries to template "learner"'s network.allow in`);
      expect(shown).toContain("nothing written");
      expect(readFileSync(file, "utf8")).toBe(config);
    },
  );

  it.skipIf(!script.run)("writes once the terminal says yes", async () => {
    const result = await onTerminal("y\n");
    expect(result.exitCode, String(result.stdout)).toBe(0);
    expect(String(result.stdout)).toContain('added 2 entries to template "learner"');
    expect(readFileSync(file, "utf8")).toContain('allow: [api.example.org, "*.cdn.example.org", "pkgs.example.org"]');
  });

  it("writes with --yes without asking, and says what it added", async () => {
    const result = await runCli([...args, "--yes"], { env });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /^template "learner": add to network\.allow\n {2}\*\.cdn\.example\.org +covers a\.cdn\.example\.org, b\.cdn\.example\.org, c\.cdn\.example\.org \(learned\)\n {2}pkgs\.example\.org +\(learned\)\n/,
    );
    expect(result.stdout).toContain('added 2 entries to template "learner"');
    expect(readFileSync(file, "utf8")).toContain('allow: [api.example.org, "*.cdn.example.org", "pkgs.example.org"]');
  });

  it("refuses --yes without --write (it would answer nothing)", async () => {
    const result = await runCli(["--config", file, "network", "demo", "--suggest", "--yes"], { env });
    expect([result.exitCode, result.stderr.trim()]).toEqual([
      64,
      expect.stringContaining("--yes goes with --suggest --write"),
    ]);
  });
});
