import { describe, expect, it } from "vitest";
import { allowedSets } from "../../../../generator/policy/network/policy-sets.js";
import { setElementRequest, type SetElementOp } from "../../../../runtime/gates/network/set-element-request.js";

const table = { family: "inet", name: "forage_f7" } as const;

describe("a request of forage-set-elements", () => {
  it("names the table, then each op with its set, key type and elements (timeouts on adds only)", () => {
    const ops: SetElementOp[] = [
      { op: "flush", set: allowedSets.v4 },
      { op: "add", set: allowedSets.v6Port, elements: [{ value: ["2001:db8::1", 443], timeout: 300 }] },
      { op: "delete", set: allowedSets.v4, elements: [{ value: "192.0.2.7", timeout: 300 }] },
    ];
    expect(setElementRequest(table, ops)).toBe(
      "inet forage_f7 flush allowed4 add allowed6_port ipv6_addr.inet_service 2001:db8::1,443/300 delete allowed4 ipv4_addr 192.0.2.7",
    );
  });

  it("refuses what is not a name, an address of the set's family or a port, and empty requests", () => {
    const bad: [typeof table | { family: "inet"; name: string }, SetElementOp[]][] = [
      [{ family: "inet", name: "forage f7" }, [{ op: "flush", set: allowedSets.v4 }]],
      [table, [{ op: "flush", set: { ...allowedSets.v4, name: "a;b" } }]],
      [table, [{ op: "add", set: allowedSets.v4, elements: [{ value: "2001:db8::1" }] }]],
      [table, [{ op: "add", set: allowedSets.v4, elements: [{ value: "192.0.2.1 add" }] }]],
      [table, [{ op: "add", set: allowedSets.v4Port, elements: [{ value: ["192.0.2.1", 70000] }] }]],
      [table, [{ op: "add", set: allowedSets.v4Port, elements: [{ value: "192.0.2.1" }] }]],
      [table, [{ op: "add", set: allowedSets.v4, elements: [{ value: "192.0.2.1", timeout: 1.5 }] }]],
      [table, [{ op: "add", set: allowedSets.v4, elements: [] }]],
      [table, []],
    ];
    for (const [target, ops] of bad)
      expect(() => setElementRequest(target, ops), JSON.stringify(ops)).toThrow(/internal/);
  });
});
