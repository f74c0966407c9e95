import { describe, expect, it } from "vitest";
import { NftValidationError, printNftElements, printNftFlushSets, printNftLine, type NftSet } from "../../../../generator/emit/nft/index.js";

const table = { family: "inet", name: "forage_f1" } as const;
const set: NftSet = { name: "allowed6_port", type: ["ipv6_addr", "inet_service"], flags: ["timeout"] };

describe("one line of nft commands (one transaction for nft -i)", () => {
  it("joins printed element and flush commands with ;", () => {
    const script = printNftFlushSets(table, [set]) + printNftElements(table, set, [{ value: ["fd00::1", 443], timeout: 300 }]);
    expect(printNftLine(script)).toBe("flush set inet forage_f1 allowed6_port; add element inet forage_f1 allowed6_port { fd00::1 . 443 timeout 300s }");
  });

  it("refuses anything but one-line element and flush commands: a table, a comment, a continuation", () => {
    for (const script of [
      "table inet t {\n}\n",
      "add element inet t s { 1.2.3.4 } # x\n",
      "add element inet t s { 1.2.3.4 }\\\n",
      "list ruleset\n",
      "",
      "add element inet t s { 1.2.3.4 }; flush ruleset\n",
    ]) {
      expect(() => printNftLine(script), JSON.stringify(script)).toThrow(NftValidationError);
    }
  });
});
