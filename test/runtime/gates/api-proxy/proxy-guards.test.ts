import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { canonicalPath } from "../../../../runtime/gates/api-proxy/path-grammar.js";
import { maxInFlightAlone, proxyGate, SandboxGate } from "../../../../runtime/gates/api-proxy/sandbox-gate.js";

/* The proxy's guards on their own: the path grammar, the per-sandbox gate (key redaction: ../shared/key-redactor.test.ts). */

describe("the path grammar", () => {
  it.each([
    ["/v1/messages", "/v1/messages"],
    ["/v1/models/gemini-pro:streamGenerateContent", "/v1/models/gemini-pro:streamGenerateContent"],
    ["/v1/%7Euser/", "/v1/~user/"],
    ["/", "/"],
  ])("allows %s as %s", (raw, encoded) => {
    expect(canonicalPath(raw)).toMatchObject({ ok: true, encoded });
  });

  it.each([
    "/v1/%c0%ae",
    "/v1/%e0%80%ae",
    "/v1/%u002e",
    "/v1/a%00",
    "/v1/.",
    "/v1/%2E%2e",
    "/v1\\x",
    "/v1/a;b",
    "/v1/%252e",
    "/v1/%zz",
    "v1",
    "/v1/é",
  ])("refuses %s", (raw) => {
    expect(canonicalPath(raw).ok).toBe(false);
  });
});

describe("the per-sandbox gate", () => {
  it("lets a sandbox's requests in up to its slots, queues the rest in order, and keeps sandboxes apart", () => {
    const gate = new SandboxGate(() => 2, 1);
    const started: string[] = [];
    const passes = ["a1", "a2", "a3"].map((name) => gate.enter("a", () => started.push(name)));
    expect(gate.enter("a", () => started.push("a4"))).toBeNull();
    gate.enter("b", () => started.push("b1"));
    expect(started).toEqual(["a1", "a2", "b1"]);
    passes[0]?.leave();
    expect(started).toEqual(["a1", "a2", "b1", "a3"]);
    expect(gate.inFlight("a")).toBe(2);
  });

  it("forgets a waiting request that leaves before its turn", () => {
    const gate = new SandboxGate(() => 1, 4);
    const started: string[] = [];
    const first = gate.enter("a", () => started.push("1"));
    gate.enter("a", () => started.push("2"))?.leave();
    gate.enter("a", () => started.push("3"));
    first?.leave();
    expect(started).toEqual(["1", "3"]);
  });

  describe("alone on the proxy, a sandbox uses more than its share", () => {
    beforeEach(() => void vi.useFakeTimers());
    afterEach(() => void vi.useRealTimers());

    it("has up to its alone slots in flight, and is held to its share as soon as another sandbox asks", () => {
      const gate = new SandboxGate(() => 2, 10, { alone: () => 4, windowMs: 1_000 });
      const started: string[] = [];
      const a = ["a1", "a2", "a3", "a4", "a5"].map((name) => gate.enter("a", () => started.push(name)));
      expect(started).toEqual(["a1", "a2", "a3", "a4"]);
      gate.enter("b", () => started.push("b1"));
      expect(started).toEqual(["a1", "a2", "a3", "a4", "b1"]);
      // Its share is 2: a5 starts only once a has fewer than 2 in flight.
      a[0]?.leave();
      a[1]?.leave();
      expect(started).not.toContain("a5");
      a[2]?.leave();
      expect(started.at(-1)).toBe("a5");
      expect(gate.inFlight("a")).toBe(2);
    });

    it("counts a sandbox whose last request ended within the window, then gives its room back", () => {
      const gate = new SandboxGate(() => 1, 10, { alone: () => 3, windowMs: 1_000 });
      const started: string[] = [];
      gate.enter("b", () => started.push("b1"))?.leave();
      gate.enter("a", () => started.push("a1"));
      gate.enter("a", () => started.push("a2"));
      expect(started).toEqual(["b1", "a1"]);
      vi.advanceTimersByTime(999);
      expect(started).toEqual(["b1", "a1"]);
      vi.advanceTimersByTime(1);
      expect(started).toEqual(["b1", "a1", "a2"]);
      gate.enter("a", () => started.push("a3"));
      expect(gate.inFlight("a")).toBe(3);
    });

    it("keeps a sandbox under a token limit to one request in flight, alone or not", () => {
      const gate = proxyGate(true);
      const started: string[] = [];
      gate.enter("a", () => started.push("a1"));
      gate.enter("a", () => started.push("a2"));
      expect(started).toEqual(["a1"]);
      const open = proxyGate(false);
      for (let index = 0; index < maxInFlightAlone + 1; index += 1) open.enter("a", () => started.push("x"));
      expect(open.inFlight("a")).toBe(maxInFlightAlone);
    });
  });
});
