import { describe, expect, it } from "vitest";
import { parseHookMessage } from "../../../../runtime/gates/push-gate/hook-message.js";

const zeros = "0".repeat(40);
const id = "a".repeat(40);

describe("a hook's message to the gate", () => {
  it("reads pre-receive's quarantine and updates, a deletion's new id as null", () => {
    expect(
      parseHookMessage(
        `pre-receive\n/o/./objects/tmp_objdir-incoming-x\n${zeros} ${id} refs/heads/a\n${id} ${zeros} refs/heads/b\n`,
      ),
    ).toEqual({
      hook: "pre-receive",
      quarantine: "/o/./objects/tmp_objdir-incoming-x",
      updates: [
        { old: zeros, new: id, ref: "refs/heads/a" },
        { old: id, new: null, ref: "refs/heads/b" },
      ],
    });
  });

  it("takes pre-receive's empty quarantine line (a push that brought no new objects)", () => {
    expect(parseHookMessage(`pre-receive\n\n${zeros} ${id} refs/heads/a\n`)).toMatchObject({
      quarantine: "",
      updates: [{ ref: "refs/heads/a" }],
    });
  });

  it("reads the update hook's one update", () => {
    expect(parseHookMessage(`update\n${zeros} ${id} refs/heads/a\n`)).toEqual({
      hook: "update",
      update: { old: zeros, new: id, ref: "refs/heads/a" },
    });
  });

  it.each([
    ["an unknown hook", `post-receive\n${zeros} ${id} refs/heads/a\n`, /unknown hook/],
    [
      "an update with two lines (a ref name with a newline)",
      `update\n${zeros} ${id} refs/heads/a\nrefs/heads/b\n`,
      /malformed/,
    ],
    ["a last line without its newline", `update\n${zeros} ${id} refs/heads/a`, /malformed/],
    ["an empty update line", `pre-receive\n\n\n${zeros} ${id} refs/heads/a\n`, /malformed ref update/],
    ["a short object id", `update\n${zeros} abc refs/heads/a\n`, /malformed ref update/],
    ["an extra field", `update\n${zeros} ${id} refs/heads/a extra\n`, /malformed ref update/],
    ["no updates at all", `pre-receive\n\n`, /no ref updates/],
  ])("refuses %s", (_what, text, problem) => {
    expect(() => parseHookMessage(text)).toThrow(problem);
  });

  it("refuses a push of more than 32 refs, saying what to do", () => {
    const lines = Array.from({ length: 33 }, (_, i) => `${zeros} ${id} refs/heads/b${i}\n`).join("");
    expect(() => parseHookMessage(`pre-receive\n\n${lines}`)).toThrow(/push fewer branches at once/);
  });
});
