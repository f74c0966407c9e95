import { describe, expect, it } from "vitest";
import { serverSandboxName } from "../../../runtime/sandbox/mcp-server-sandboxes.js";
import { assertSandboxName } from "../../../runtime/core/names.js";

/* A stdio MCP server's sandbox is named after the agent's sandbox and the server, within a sandbox name's limits. */
describe("a stdio server's sandbox's name", () => {
  it("is the agent's sandbox's name, two dashes, the server's: a sandbox name itself", () => {
    expect(serverSandboxName("fix-42", "github")).toBe("fix-42--github");
    expect(() => assertSandboxName(serverSandboxName("a".repeat(55), "github"))).not.toThrow();
  });

  it("is refused, with what to do, when it would be over 63 characters", () => {
    expect(() => serverSandboxName("a".repeat(56), "github")).toThrow(
      /"a{56}--github" is over 63 characters; use a shorter sandbox name/,
    );
  });
});
