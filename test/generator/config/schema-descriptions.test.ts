import type { z } from "zod";
import { describe, expect, it } from "vitest";
import { configSchema } from "../../../generator/config/schema/config.js";

/*
 * DESIGN rule 4: every field of the schema carries a description (editors show it, the JSON
 * Schema and the NixOS options reuse it). A field counts as described when the field schema or
 * any wrapper around it (optional, default, nullable, …) has one.
 */

type AnySchema = z.core.$ZodType;

interface Def {
  type: string;
  shape?: Record<string, AnySchema>;
  innerType?: AnySchema;
  element?: AnySchema;
  valueType?: AnySchema;
  options?: AnySchema[];
  in?: AnySchema;
  out?: AnySchema;
}

const defOf = (schema: AnySchema): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;
const descriptionOf = (schema: AnySchema): string | undefined => (schema as unknown as { meta(): { description?: string } | undefined }).meta()?.description;

/** The field schema and every schema it wraps, outermost first. */
function wrapperLayers(schema: AnySchema): AnySchema[] {
  const layers = [schema];
  for (let inner = defOf(schema).innerType; inner !== undefined; inner = defOf(inner).innerType) layers.push(inner);
  return layers;
}

/** Paths of object fields without a description, e.g. `templates.*.network`. */
function undescribedFields(schema: AnySchema, path: string, seen = new Set<AnySchema>()): string[] {
  if (seen.has(schema)) return [];
  seen.add(schema);
  const def = defOf(schema);
  switch (def.type) {
    case "object":
      return Object.entries(def.shape ?? {}).flatMap(([key, field]) => {
        const fieldPath = path === "" ? key : `${path}.${key}`;
        const described = wrapperLayers(field).some((layer) => (descriptionOf(layer) ?? "").trim() !== "");
        return [...(described ? [] : [fieldPath]), ...undescribedFields(field, fieldPath, seen)];
      });
    case "optional":
    case "default":
    case "prefault":
    case "nullable":
    case "nonoptional":
    case "readonly":
    case "catch":
      return def.innerType === undefined ? [] : undescribedFields(def.innerType, path, seen);
    case "pipe":
      return [def.in, def.out].flatMap((s) => (s === undefined ? [] : undescribedFields(s, path, seen)));
    case "array":
      return def.element === undefined ? [] : undescribedFields(def.element, `${path}[]`, seen);
    case "record":
      return def.valueType === undefined ? [] : undescribedFields(def.valueType, `${path}.*`, seen);
    case "union":
      return (def.options ?? []).flatMap((option) => undescribedFields(option, path, seen));
    default:
      return [];
  }
}

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
