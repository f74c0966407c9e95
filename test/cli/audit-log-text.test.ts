import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isRoot } from "../support/tools.js";
import { repoRoot, runCli } from "./run-cli.js";

/*
 * forage-ctl audit-log prints each event's detail, which can carry the sandbox's text (a session
 * warning, a failed up's reason): its control characters and direction changes must reach the
 * terminal escaped, while the escapes an approval's detail already holds read as they were.
 * Root's in-process forage-ctl (no daemon at this run directory) reads the log itself.
 */
describe.skipIf(!isRoot())("forage-ctl audit-log shows the sandbox's text escaped", () => {
  const dir = mkdtempSync(join(tmpdir(), "forage-audit-text-"));
  const env = { FORAGE_STATE_DIR: join(dir, "state"), FORAGE_RUN_DIR: join(dir, "run") };
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("escapes a terminal's title sequence, a bell and a right-to-left override, and keeps escapes already made", async () => {
    mkdirSync(join(dir, "state", "sandboxes"), { recursive: true });
    const events = [
      {
        time: "2026-11-27T00:00:00Z",
        sandbox: "x",
        event: "warning",
        detail: "session said \u001b]0;pwned\u0007 done\u202e",
      },
      { time: "2026-11-27T00:00:01Z", sandbox: "x", event: "approval-asked", detail: "host pay\\u200bpal.example" },
    ];
    writeFileSync(
      join(dir, "state", "sandboxes", "x.events.jsonl"),
      events.map((event) => `${JSON.stringify(event)}\n`).join(""),
    );
    const shown = await runCli(["--config", join(repoRoot, "examples/quickstart/forage.yaml"), "audit-log", "x"], {
      env,
    });
    expect([shown.exitCode, shown.stderr]).toEqual([0, ""]);
    expect(shown.stdout).toContain("session said \\x1b]0;pwned\\x07 done\\u202e");
    expect(shown.stdout).toContain("host pay\\u200bpal.example");
    expect(shown.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u202e]/);
    // --json keeps the record as it was written: the escaping is the table's.
    const json = await runCli(
      ["--config", join(repoRoot, "examples/quickstart/forage.yaml"), "audit-log", "x", "--json"],
      { env },
    );
    expect(json.stdout.split("\n")[0]).toBe(JSON.stringify(events[0]));
  });
});
