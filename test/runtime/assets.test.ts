import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { nspawnBackend } from "../../runtime/backends/nspawn/nspawn-backend.js";
import { profileAssetPath } from "../../runtime/provision/assets.js";

describe("the host-root sandbox's /etc/profile", () => {
  it("sets the same PATH that exec gives processes, launchers first", () => {
    const sandboxPath = nspawnBackend.inside.path(null);
    expect(readFileSync(profileAssetPath(), "utf8")).toContain(`\nPATH=${sandboxPath}\nexport PATH\n`);
    expect(sandboxPath.startsWith("/opt/forage/bin:")).toBe(true);
  });
});
