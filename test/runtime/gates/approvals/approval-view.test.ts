import { describe, expect, it } from "vitest";
import { escapeControl, subjectSummary } from "../../../../runtime/gates/approvals/approval-view.js";
import { parseApprovalDuration } from "../../../../cli/approval-duration.js";

describe("what a listing prints of a sandbox's request", () => {
  it("escapes control characters, so a subject cannot move the cursor, ring, recolour or fake a line", () => {
    expect(escapeControl("evil.example\x1b[2J\r\nID  fake\x07\u202e\\")).toBe(
      "evil.example\\x1b[2J\\x0d\\x0aID  fake\\x07\\u202e\\\\",
    );
    expect(escapeControl("plain.example:443")).toBe("plain.example:443");
  });

  it("says in one line what each kind asks", () => {
    expect(subjectSummary({ sandbox: "s", kind: "host", subject: { name: "pypi.example" } })).toBe("pypi.example");
    expect(
      subjectSummary({
        sandbox: "s",
        kind: "push",
        subject: {
          remote: "origin",
          url: "u",
          ref: "refs/heads/new",
          from: null,
          to: "abcdef0123456789",
          commitCount: 2,
          commits: ["a", "b"],
          diffstat: "",
        },
      }),
    ).toBe("origin refs/heads/new new abcdef012345 (2 commits)");
    expect(
      subjectSummary({ sandbox: "s", kind: "ssh-sign", subject: { fingerprint: "SHA256:x", comment: "me@laptop" } }),
    ).toBe("SHA256:x (me@laptop)");
  });

  it("counts a long push's commits exactly, not the lines it lists", () => {
    const commits = ["c1 oldest", "c301 newest"];
    const push = {
      remote: "origin",
      url: "u",
      ref: "refs/heads/big",
      from: null,
      to: "abcdef0123456789",
      commitCount: 301,
      commits,
      omitted: { after: 1, count: 299 },
      diffstat: "",
    };
    expect(subjectSummary({ sandbox: "s", kind: "push", subject: push })).toBe(
      "origin refs/heads/big new abcdef012345 (301 commits)",
    );
  });

  it("escapes every invisible or direction-changing character in the summary, and quotes the sandbox's free text", () => {
    expect(subjectSummary({ sandbox: "s", kind: "host", subject: { name: "pay\u200bpal.example", port: 443 } })).toBe(
      "pay\\u200bpal.example:443",
    );
    const sign = {
      fingerprint: "SHA256:key",
      comment: "me\u00a0(laptop)",
      destination: {
        kind: "ssh-login" as const,
        user: 'git" to a server with host key SHA256:real (',
        hostKey: `SHA256:${"A".repeat(43)}`,
      },
    };
    expect(subjectSummary({ sandbox: "s", kind: "ssh-sign", subject: sign })).toBe(
      `SHA256:key (me\\xa0(laptop)) → ssh login as "git\\" to a server with host key SHA256:real (" to a server with host key SHA256:${"A".repeat(43)}`,
    );
  });

  it("cuts a long host name at its start in a narrow summary, keeping the domain and the port", () => {
    const name = `${"login.bank.example.".repeat(12)}evil.example`;
    const cut = subjectSummary({ sandbox: "s", kind: "host", subject: { name, port: 443 } }, 100);
    expect(cut).toHaveLength(100);
    expect(cut).toMatch(/^….*\.bank\.example\.evil\.example:443$/);
  });

  it("cuts a long ref in its middle in a narrow summary, keeping the remote, the range and the count", () => {
    const push = {
      remote: "origin",
      url: "u",
      ref: `refs/heads/${"x".repeat(200)}-end`,
      from: "1111111111111111",
      to: "2222222222222222",
      commitCount: 3,
      commits: ["a", "b", "c"],
      diffstat: "",
    };
    const cut = subjectSummary({ sandbox: "s", kind: "push", subject: push }, 100);
    expect(cut.length).toBeLessThanOrEqual(100);
    expect(cut).toMatch(/^origin refs\/heads\/x+…x+-end 111111111111\.\.222222222222 \(3 commits\)$/);
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
    expect(() => parseApprovalDuration("10")).toThrow(
      expect.objectContaining({
        kind: "usage",
        message: '--for: "10" is not a duration: write e.g. 10m, 1h or 1h30m (s, m, h)',
      }),
    );
    expect(() => parseApprovalDuration("25h")).toThrow("--for: 25h is out of range: from 1s to 24h");
  });
});
