import { describe, expect, it } from "vitest";
import { z } from "zod";
import { issueList } from "../../../generator/lib/issue-list.js";

describe("issueList", () => {
  it("lists every issue of a parse at its path, not the first alone", () => {
    const parsed = z
      .strictObject({ name: z.string(), limits: z.object({ tasks: z.number().max(10) }) })
      .safeParse({ limits: { tasks: 99 }, extra: 1 });
    expect(parsed.success).toBe(false);
    const line = issueList(parsed.error?.issues ?? []);
    expect(line.split("; ")).toHaveLength(3);
    expect(line).toMatch(
      /^name: Invalid input: expected string, received undefined; limits\.tasks: Too big: expected number to be <=10; Unrecognized key: "extra"$/,
    );
  });

  it("shows an issue of the value itself without a path", () => {
    const parsed = z.string().min(3).safeParse("ab");
    expect(issueList(parsed.error?.issues ?? [])).toBe("Too small: expected string to have >=3 characters");
  });

  it("shows 20 issues at most, and how many more there are", () => {
    const parsed = z.array(z.number()).safeParse(Array.from({ length: 25 }, () => "x"));
    const line = issueList(parsed.error?.issues ?? []);
    expect(line.split("; ")).toHaveLength(21);
    expect(line).toMatch(/^0: Invalid input: expected number, received string; .*19: Invalid input.*; and 5 more$/);
  });
});
