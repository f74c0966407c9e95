import { chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRoot } from "../support/tools.js";
import { makeTempDir, removeTempDir, repoRoot } from "../cli/run-cli.js";

/** scripts/reachable-by-others.sh, which install.sh and the test setup use to say a checkout is root's alone. */
describe.skipIf(!isRoot())("reachable-by-others.sh", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await makeTempDir();
    chmodSync(dir, 0o755);
    mkdirSync(join(dir, "private/checkout"), { recursive: true });
  });
  afterAll(async () => {
    await removeTempDir(dir);
  });
  const check = (path: string) =>
    execa("bash", [join(repoRoot, "scripts/reachable-by-others.sh"), path], { reject: false });

  it("names the directory on the way that keeps other accounts out, and fails", async () => {
    chmodSync(join(dir, "private"), 0o700);
    const result = await check(join(dir, "private/checkout"));
    expect([result.exitCode, result.stdout]).toEqual([1, join(dir, "private")]);
  });

  it("names the checkout itself when others may pass through but not read it", async () => {
    chmodSync(join(dir, "private"), 0o711);
    chmodSync(join(dir, "private/checkout"), 0o711);
    const result = await check(join(dir, "private/checkout"));
    expect([result.exitCode, result.stdout]).toEqual([1, join(dir, "private/checkout")]);
  });

  it("passes a checkout others can reach and read, saying nothing", async () => {
    chmodSync(join(dir, "private/checkout"), 0o755);
    const result = await check(join(dir, "private/checkout"));
    expect([result.exitCode, result.stdout, result.stderr]).toEqual([0, "", ""]);
  });

  it("says it cannot check, exit 2, where it cannot switch to another account (not root): not a blocked directory", async () => {
    const result = await execa(
      "bash",
      [join(repoRoot, "scripts/reachable-by-others.sh"), join(dir, "private/checkout")],
      {
        reject: false,
        uid: 65534,
        gid: 65534,
      },
    );
    expect([result.exitCode, result.stdout]).toEqual([2, ""]);
    expect(result.stderr).toContain("cannot run a program as uid 65534 here");
  });
});
