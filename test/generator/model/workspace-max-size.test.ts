import { describe, expect, it } from "vitest";
import { templateSchema } from "../../../generator/config/schema/template.js";
import { parseSize } from "../../../runtime/cgroups/sizes.js";
import { template } from "./resolve-helpers.js";

describe("workspace.maxSize", () => {
  it("is null unless a template sets it", () => {
    expect(template({ t: {} }, "t").workspaceMaxSize).toBeNull();
  });

  it("carries the size as written, and a child template inherits it", () => {
    const templates = {
      parent: { workspace: { maxSize: "10G" } },
      child: { extends: "parent", description: "inherits" },
    };
    expect(template(templates, "parent").workspaceMaxSize).toBe("10G");
    expect(template(templates, "child").workspaceMaxSize).toBe("10G");
  });

  it("takes memoryMax's size grammar, in bytes as the runtime reads it", () => {
    for (const size of ["32M", "10G", "1T", "1048576"])
      expect(templateSchema.safeParse({ workspace: { maxSize: size } }).success).toBe(true);
    expect(parseSize("32M")).toBe(32 * 1024 ** 2);
  });

  it.each(["10GB", "0", "infinity", "1.5G", "-1G", ""])("refuses %j, saying what a size looks like", (size) => {
    const result = templateSchema.safeParse({ workspace: { maxSize: size } });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe('must be bytes with an optional K/M/G/T suffix, e.g. "10G"');
  });
});
