import { describe, expect, it } from "vitest";
import { callShapes as calls, isOp, parseRequest, plainOperations, type Op } from "../../../runtime/api/calls.js";
import { cases } from "../daemon/call-fixture.js";

/** A valid request for every call: the operations' cases, and the daemon's own calls. */
const daemonRequests = {
  proxyStatus: {},
  hello: {},
  shutdown: {},
  approvals: {},
  approve: { id: "k7q2xm", mode: "for", forMs: 600_000 },
  deny: { id: "k7q2xm" },
  approvalAsk: { sandbox: "demo", kind: "host", subject: { name: "pypi.example", port: 443 }, deadlineMs: 30_000 },
} as const;
const validRequest = (op: Op): object =>
  op in daemonRequests ? daemonRequests[op as keyof typeof daemonRequests] : cases[op as keyof typeof cases].request;
const allOps = Object.keys(calls).filter(isOp);

describe("the call table", () => {
  it("declares every operation once, and streams only up and checkpoint (progress) and exec (streams and terminal)", () => {
    expect(allOps).toEqual([
      "up",
      "down",
      "list",
      "status",
      "start",
      "stop",
      "reset",
      "checkpoint",
      "restore",
      "auditLog",
      "logs",
      "gc",
      "exec",
      "snapshot",
      "network",
      "denials",
      "authSet",
      "authStatus",
      "authRemove",
      "port",
      "runtimes",
      "templates",
      "proxyStatus",
      "approvals",
      "approve",
      "deny",
      "approvalAsk",
      "hello",
      "shutdown",
    ]);
    expect(allOps.filter((op) => calls[op].streams !== "none").map((op) => [op, calls[op].streams])).toEqual([
      ["up", "progress"],
      ["checkpoint", "progress"],
      ["exec", "exec"],
    ]);
    expect(plainOperations).toEqual([
      "down",
      "list",
      "status",
      "start",
      "stop",
      "reset",
      "restore",
      "auditLog",
      "logs",
      "gc",
      "snapshot",
      "network",
      "denials",
      "authSet",
      "authStatus",
      "authRemove",
      "port",
      "runtimes",
      "templates",
    ]);
  });

  it.each(allOps)("%s: takes its valid request as it is", (op) => {
    expect(parseRequest(op, validRequest(op))).toEqual(validRequest(op));
  });

  it.each(allOps)("%s: refuses a field it does not take, naming the call", (op) => {
    expect(() => parseRequest(op, { ...validRequest(op), extra: 1 })).toThrow(new RegExp(`^invalid ${op} request: `));
  });

  it("refuses a request that fails its schema as a usage error naming the field and the limit", () => {
    expect(() => parseRequest("logs", { name: "demo", lines: 0 })).toThrow(
      expect.objectContaining({
        kind: "usage",
        message: "invalid logs request: lines: Too small: expected number to be >=1",
      }),
    );
    expect(() => parseRequest("network", { name: "demo", change: { mode: "open" } })).toThrow(
      /^invalid network request: change\.mode: /,
    );
    expect(() =>
      parseRequest("port", { name: "demo", change: { kind: "add", forward: { hostPort: 80, port: 80 } } }),
    ).toThrow(
      expect.objectContaining({
        kind: "usage",
        message:
          "invalid port request: change.forward.hostPort: host ports below 1024 are privileged: choose 1024-65535",
      }),
    );
    expect(() =>
      parseRequest("port", { name: "demo", change: { kind: "add", forward: { hostPort: 8080, port: 65536 } } }),
    ).toThrow(/^invalid port request: change\.forward\.port: /);
    expect(() =>
      parseRequest("port", { name: "demo", change: { kind: "remove", hostPort: 8080.5, port: null } }),
    ).toThrow(/^invalid port request: change\.hostPort: /);
  });

  it("refuses an approval answer that mixes up --for and its duration, or an id that is not one", () => {
    expect(() => parseRequest("approve", { id: "k7q2xm", mode: "for" })).toThrow(
      /^invalid approve request: forMs: forMs goes with mode for/,
    );
    expect(() => parseRequest("approve", { id: "k7q2xm", mode: "once", forMs: 60_000 })).toThrow(
      /^invalid approve request: forMs: /,
    );
    expect(() => parseRequest("deny", { id: "k7q2x;" })).toThrow(/^invalid deny request: id: must be a request id/);
  });

  it("checks an approval's answer field by field, so nothing garbled reads as an approval", () => {
    expect(calls.approvalAsk.result({ decision: "for", untilMs: 5 })).toEqual({ decision: "for", untilMs: 5 });
    expect(() => calls.approvalAsk.result({ decision: "yes" })).toThrow();
    expect(() => calls.approvalAsk.result({ decision: "for" })).toThrow();
    expect(() => calls.approvalAsk.result(null)).toThrow();
  });

  it("treats a missing request as an empty one (a call that takes nothing)", () => {
    expect(parseRequest("list", undefined)).toEqual({});
    expect(() => parseRequest("status", undefined)).toThrow(/^invalid status request: name: /);
  });

  it("knows only its own calls as operations, not what every object has", () => {
    expect(["toString", "constructor", "__proto__", "via"].filter(isOp)).toEqual([]);
  });
});
