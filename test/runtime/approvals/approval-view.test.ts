import { describe, expect, it } from "vitest";
import { escapeControl, subjectSummary } from "../../../runtime/approvals/approval-view.js";
import { parseApprovalDuration } from "../../../cli/approval-duration.js";

describe("what a listing prints of a sandbox's request", () => {
  it("escapes control characters, so a subject cannot move the cursor, ring, recolour or fake a line", () => {
    expect(escapeControl("evil.example\x1b[2J\r\nID  fake\x07\u202e\\")).toBe("evil.example\\x1b[2J\\x0d\\x0aID  fake\\x07\\u202e\\\\");
    expect(escapeControl("plain.example:443")).toBe("plain.example:443");
  });

  it("says in one line what each kind asks", () => {
    expect(subjectSummary({ sandbox: "s", kind: "host", subject: { name: "pypi.example" } })).toBe("pypi.example");
    expect(subjectSummary({ sandbox: "s", kind: "push", subject: { remote: "origin", url: "u", ref: "refs/heads/new", from: null, to: "abcdef0123456789", commits: ["a", "b"], diffstat: "" } })).toBe(
      "origin refs/heads/new new abcdef012345 (2 commits)",
    );
    expect(subjectSummary({ sandbox: "s", kind: "ssh-sign", subject: { fingerprint: "SHA256:x", comment: "me@laptop" } })).toBe("SHA256:x (me@laptop)");
  });
});

describe("approve --for DURATION", () => {
  it.each([
    ["10m", 600_000],
    ["1h", 3_600_000],
    ["1h30m", 5_400_000],
    ["90s", 90_000],
  ])("reads %s", (text, ms) => {
    expect(parseApprovalDuration(text)).toBe(ms);
  });

  it("refuses what is not a duration, or is longer than a day, as a usage error naming the form", () => {
    expect(() => parseApprovalDuration("10")).toThrow(expect.objectContaining({ kind: "usage", message: '--for: "10" is not a duration: write e.g. 10m, 1h or 1h30m (s, m, h)' }));
    expect(() => parseApprovalDuration("25h")).toThrow("--for: 25h is out of range: from 1s to 24h");
  });
});
