import { describe, expect, it } from "vitest";
import { runCli, stackFrame } from "../run-cli.js";

describe("forage-ctl pick outside a terminal", () => {
  it("exits 64 with a usage error that says it needs a terminal", async () => {
    // runCli gives no terminal: stdin is /dev/null and stdout a pipe, as in a script.
    const result = await runCli(["pick"]);
    expect(result.exitCode).toBe(64);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("pick needs a terminal");
    expect(result.stderr).not.toMatch(stackFrame);
  });

  it("documents its keys and the wizard's steps in --help", async () => {
    const result = await runCli(["pick", "--help"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^Usage: forage-ctl pick /);
    for (const text of ["/ filter", "Enter attach", "n new sandbox", "d remove", "q quit", "Tab completes"])
      expect(result.stdout).toContain(text);
  });
});
