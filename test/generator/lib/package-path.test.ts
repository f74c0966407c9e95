import { describe, expect, it } from "vitest";
import { joinPackagePath, splitPackagePath } from "../../../generator/lib/package-path.js";

describe("package paths: the dotted spelling of the config and forage.json, and the model's segments", () => {
  it("splits an attribute path at its dots", () => {
    expect(splitPackagePath("python3Packages.black")).toEqual(["python3Packages", "black"]);
    expect(splitPackagePath("ripgrep")).toEqual(["ripgrep"]);
  });

  it("joins segments back into the same string", () => {
    for (const ref of ["ripgrep", "python3Packages.black", "llm-agents.codex", "python3Packages.in'"])
      expect(joinPackagePath(splitPackagePath(ref))).toBe(ref);
  });
});
