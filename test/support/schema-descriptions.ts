import type { z } from "zod";

/*
 * ARCHITECTURE.md rule 4: every field of a schema carries a description (editors show it, the JSON Schema
 * and the NixOS options reuse it). A field counts as described when the field schema or any
 * wrapper around it (optional, default, nullable, …) has one. Used by the config schema's and the
 * settings document's description tests.
 */

export type AnySchema = z.core.$ZodType;

export interface Def {
  type: string;
  shape?: Record<string, AnySchema>;
  innerType?: AnySchema;
  element?: AnySchema;
  valueType?: AnySchema;
  options?: AnySchema[];
  in?: AnySchema;
  out?: AnySchema;
}

export const defOf = (schema: AnySchema): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;
export const descriptionOf = (schema: AnySchema): string | undefined =>
  (schema as unknown as { meta(): { description?: string } | undefined }).meta()?.description;

/** The field schema and every schema it wraps, outermost first. */
function wrapperLayers(schema: AnySchema): AnySchema[] {
  const layers = [schema];
  for (let inner = defOf(schema).innerType; inner !== undefined; inner = defOf(inner).innerType) layers.push(inner);
  return layers;
}

/** Paths of object fields without a description, e.g. `templates.*.network`. */
export function undescribedFields(schema: AnySchema, path: string, seen = new Set<AnySchema>()): string[] {
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
