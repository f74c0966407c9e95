import { describe, expect, it } from "vitest";
import { configSchema } from "../../../generator/config/schema/config.js";
import { defOf, descriptionOf, undescribedFields, type AnySchema } from "../../support/schema-descriptions.js";

/*
 * ARCHITECTURE.md rule 4: every field of the schema carries a description (editors show it, the JSON
 * Schema and the NixOS options reuse it). A field counts as described when the field schema or
 * any wrapper around it (optional, default, nullable, …) has one.
 */

describe("the config schema's descriptions", () => {
  it("walks into nested objects (the check reaches template and agent fields)", () => {
    // Guards the walker itself: if it stopped at the root, the next test would pass vacuously.
    const fieldsSeen: string[] = [];
    const collect = (schema: AnySchema, path: string): void => {
      const def = defOf(schema);
      if (def.type === "object") {
        for (const [key, field] of Object.entries(def.shape ?? {})) {
          const fieldPath = path === "" ? key : `${path}.${key}`;
          fieldsSeen.push(fieldPath);
          collect(field, fieldPath);
        }
      } else if (def.innerType !== undefined) collect(def.innerType, path);
      else if (def.type === "array" && def.element !== undefined) collect(def.element, `${path}[]`);
      else if (def.type === "record" && def.valueType !== undefined) collect(def.valueType, `${path}.*`);
      else if (def.type === "union") for (const option of def.options ?? []) collect(option, path);
    };
    collect(configSchema, "");
    expect(fieldsSeen).toEqual(
      expect.arrayContaining([
        "user",
        "templates.*.agents.*.package",
        "templates.*.agents.*.permissions.skipAll",
        "templates.*.network.allow",
        "templates.*.workspace.mounts.*.containerPath",
        "templates.*.workspace.useBeads.branch",
        "templates.*.tmuxWindows[].command",
        "proxy.rateLimit.window",
      ]),
    );
  });

  it("has a description on the root schema", () => {
    expect(descriptionOf(configSchema)).toBeTruthy();
  });

  it("has a description on every field, at any depth", () => {
    expect(undescribedFields(configSchema, ""), "fields without .describe() (or meta description)").toEqual([]);
  });
});
