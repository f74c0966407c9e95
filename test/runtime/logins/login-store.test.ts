import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runtimePaths } from "../../../runtime/core/paths.js";
import { loginPath, readLogin } from "../../../runtime/logins/login-store.js";

/** The host's login store refuses to read through a link, whatever it points at. */
const dir = mkdtempSync(join(tmpdir(), "forage-logins-"));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("the login store", () => {
  it("refuses a stored login that is a symbolic link, and reads nothing through it", async () => {
    const paths = runtimePaths(dir, {});
    const file = loginPath(paths, "dev", "claude");
    mkdirSync(join(paths.loginsDir, "dev"), { recursive: true });
    const target = join(dir, "elsewhere.json");
    writeFileSync(
      target,
      JSON.stringify({ kind: "token", flavor: "claude", token: "t", setAt: new Date().toISOString(), expiresAt: null }),
    );
    symlinkSync(target, file);
    await expect(readLogin(paths, "dev", "claude")).rejects.toThrow(
      expect.objectContaining({ name: "SandboxError", message: expect.stringContaining("is a symbolic link") }),
    );
    await expect(readLogin(paths, "dev", "codex")).resolves.toBeUndefined();
  });

  it("refuses a stored login that is not one as a user error naming every problem, and how to set it again", async () => {
    const paths = runtimePaths(dir, {});
    mkdirSync(join(paths.loginsDir, "dev"), { recursive: true });
    writeFileSync(loginPath(paths, "dev", "claude"), JSON.stringify({ kind: "token", flavor: "claude" }));
    const refused = readLogin(paths, "dev", "claude");
    await expect(refused).rejects.toThrow(expect.objectContaining({ name: "SandboxError", kind: "general" }));
    await expect(refused).rejects.toThrow(
      /is not a stored login \(.*token: .*; .*setAt: .*\); set it again with forage-ctl auth set claude/,
    );
  });

  it("refuses a stored login that is not JSON (a torn write) as a user error, not a bug", async () => {
    const paths = runtimePaths(dir, {});
    mkdirSync(join(paths.loginsDir, "dev"), { recursive: true });
    writeFileSync(loginPath(paths, "dev", "claude"), '{"kind": "tok');
    await expect(readLogin(paths, "dev", "claude")).rejects.toThrow(
      expect.objectContaining({
        name: "SandboxError",
        message: expect.stringContaining("is not a stored login (not JSON)"),
      }),
    );
  });
});
