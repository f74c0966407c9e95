import { describe, expect, it } from "vitest";
import { toolVerdict, type ToolPolicy } from "../../../../runtime/gates/mcp-gate/tool-policy.js";

const policy = (part: Partial<ToolPolicy>): ToolPolicy => ({ allow: [], ask: [], deny: [], ...part });

describe("an MCP server's tool policy", () => {
  it("asks about a tool no list names", () => {
    expect(toolVerdict(policy({ allow: ["get_issue"] }), "create_issue")).toBe("ask");
  });

  it("lets deny win over ask and allow, and ask over allow", () => {
    const both = policy({ allow: ["*"], ask: ["create_*"], deny: ["delete_*"] });
    expect(toolVerdict(both, "delete_repo")).toBe("deny");
    expect(toolVerdict(both, "create_issue")).toBe("ask");
    expect(toolVerdict(both, "get_issue")).toBe("allow");
    expect(toolVerdict(policy({ allow: ["get_secret"], deny: ["*"] }), "get_secret")).toBe("deny");
  });

  it.each([
    ["get_*", "get_issue", true],
    ["get_*", "get_", true],
    ["get_*", "list_issues", false],
    ["get_*", "forget_issue", false],
    ["*_issue", "get_issue", true],
    ["*_issue", "get_issues", false],
    ["a*b*c", "abc", true],
    ["a*b*c", "axxbyyc", true],
    ["a*b*c", "acb", false],
    ["ab*ba", "aba", false],
    ["*", "anything", true],
    ["get_issue", "get_issue", true],
    ["get_issue", "get_issue2", false],
  ])("reads %s as %s: %s", (pattern, tool, matched) => {
    expect(toolVerdict(policy({ allow: [pattern] }), tool)).toBe(matched ? "allow" : "ask");
  });
});
