import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { sandboxPath } from "../../runtime/sandbox/agent-env.js";
import { profileAssetPath } from "../../runtime/sandbox/assets.js";

describe("the host-root sandbox's /etc/profile", () => {
  it("sets the same PATH that exec gives processes, launchers first", () => {
    expect(readFileSync(profileAssetPath(), "utf8")).toContain(`\nPATH=${sandboxPath}\nexport PATH\n`);
    expect(sandboxPath.startsWith("/opt/forage/bin:")).toBe(true);
  });
});
