import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { checkedOperations } from "../../../runtime/api/checked-operations.js";
import { plainOperations, type Request } from "../../../runtime/api/calls.js";
import { runtimePaths } from "../../../runtime/core/paths.js";
import type { RuntimeContext } from "../../../runtime/core/context.js";
import { cases, fakeOperations, type Seen } from "../daemon/call-fixture.js";

/*
 * Root's in-process operations check each request with its call's schema, as the daemon does:
 * a command refuses the same things whichever way it runs.
 */
const context = { paths: runtimePaths("/unused"), warn: () => undefined } as unknown as RuntimeContext;

describe("checked in-process operations", () => {
  it("hand every valid request on as the schema parsed it", async () => {
    const seen: Seen = [];
    const operations = checkedOperations(fakeOperations(context, seen));
    for (const op of plainOperations) await operations[op](cases[op].request as never);
    await operations.up(cases.up.request);
    const streams = { stdin: new PassThrough().end(), stdout: new PassThrough(), stderr: new PassThrough() };
    await operations.exec(cases.exec.request, streams);
    expect(seen).toEqual([
      ...plainOperations.map((op) => [op, cases[op].request]),
      ["up", cases.up.request],
      ["exec", cases.exec.request],
    ]);
    expect(operations.via).toBe("in-process");
  });

  it("refuse what the daemon refuses, as a usage error, before the operation runs", async () => {
    const seen: Seen = [];
    const operations = checkedOperations(fakeOperations(context, seen));
    // A template name no template can have (in-process, this was "template not found", exit 3).
    await expect(operations.up({ ...cases.up.request, template: "Claude" })).rejects.toMatchObject({
      kind: "usage",
      message: expect.stringMatching(/^invalid up request: template: /),
    });
    await expect(operations.up({ ...cases.up.request, gitUser: "Some\nOne" })).rejects.toMatchObject({
      kind: "usage",
      message: expect.stringMatching(/^invalid up request: gitUser: /),
    });
    await expect(operations.down({ name: "demo", grace: 99_999 })).rejects.toMatchObject({ kind: "usage" });
    await expect(operations.status({ name: "../etc" } as Request<"status">)).rejects.toMatchObject({ kind: "usage" });
    expect(seen).toEqual([]);
  });
});
