import type { z } from "zod";
import { dropUndefined } from "../lib/drop-undefined.js";
import { n, type NixExpr } from "../emit/nix/index.js";

/**
 * Translates the zod schema into NixOS option declarations, so the module's options and the
 * config schema cannot drift: `modules/options/*.nix` are written from this and a test fails when
 * the committed files differ from what it produces.
 *
 * @example  user: unixUserName.describe("Host user …")  becomes
 *   user = lib.mkOption { type = lib.types.str; description = "Host user …"; };
 */
export function optionsFromObject(schema: z.ZodType): NixExpr {
  const shape = objectShape(schema);
  const options: Record<string, NixExpr> = {};
  for (const [name, field] of Object.entries(shape)) {
    if (name.startsWith("$") || metaOf(field).nixType === "omit") continue;
    options[name] = optionFor(field);
  }
  return n.attrs(options);
}

interface ForageMeta {
  nixType?: "package" | "omit";
  nixModule?: string;
  /** On a union of an enum and an object: the object field a bare enum value stands for. */
  nixCoerceTo?: string;
  description?: string;
}

function optionFor(field: z.ZodType): NixExpr {
  const { type, defaultValue, description } = describeField(field);
  const attrs: Record<string, NixExpr | undefined> = {
    type,
    default: defaultValue,
    description: n.str(description ?? ""),
  };
  return n.call(lib("mkOption"), n.attrs(attrs));
}

/** Peels optional/default/nullable wrappers, remembering the default and the first description. */
function describeField(field: z.ZodType): { type: NixExpr; defaultValue?: NixExpr; description?: string } {
  let current = field;
  let nullable = false;
  let defaultValue: NixExpr | undefined;
  let description = metaOf(field).description;
  for (;;) {
    const def = defOf(current);
    if (def.type === "optional" || def.type === "nullable") nullable = true;
    else if (def.type === "default") defaultValue = defaultFor(current, def.defaultValue);
    else break;
    current = def.innerType as z.ZodType;
    description ??= metaOf(current).description;
  }
  const isPackage = metaOf(current).nixType === "package";
  // A package default such as "beads" is an attribute path in the config but a derivation in
  // Nix; the generator always sets it, so the module declares it nullable instead.
  if (isPackage && defaultValue !== undefined) [nullable, defaultValue] = [true, undefined];
  const base = typeFor(current);
  if (nullable)
    return {
      type: n.call(types("nullOr"), base),
      defaultValue: defaultValue ?? n.nul,
      ...dropUndefined({ description }),
    };
  return { type: base, ...dropUndefined({ defaultValue, description }) };
}

function defaultFor(field: z.ZodType, value: unknown): NixExpr {
  const resolved = typeof value === "function" ? (value as () => unknown)() : value;
  if (metaOf(field).nixType === "package") return n.nul;
  return n.fromValue(resolved as never);
}

function typeFor(schema: z.ZodType): NixExpr {
  const meta = metaOf(schema);
  if (meta.nixType === "package") return types("package");
  if (meta.nixModule !== undefined) {
    return n.call(
      types("submodule"),
      n.list([n.path(`./${meta.nixModule}.nix`), n.path(`./${meta.nixModule}-internal.nix`)]),
    );
  }
  const def = defOf(schema);
  switch (def.type) {
    case "string":
      return types("str");
    case "number":
      return types("int");
    case "boolean":
      return types("bool");
    case "enum":
      return n.call(types("enum"), n.fromValue(Object.values(def.entries as Record<string, string>)));
    case "array":
      return n.call(types("listOf"), typeFor(def.element as z.ZodType));
    case "record":
      return n.call(types("attrsOf"), typeFor(def.valueType as z.ZodType));
    case "object":
      return n.call(types("submodule"), n.attrs({ options: optionsFromObject(schema) }));
    case "union":
      return meta.nixCoerceTo === undefined
        ? (def.options as z.ZodType[]).map(typeFor).reduce((a, b) => n.call(types("either"), a, b))
        : coercedUnion(def.options as z.ZodType[], meta.nixCoerceTo);
    case "optional":
    case "nullable":
    case "default":
      return n.call(types("nullOr"), typeFor(def.innerType as z.ZodType));
    default:
      throw new Error(`internal: no Nix option type for zod type "${String(def.type)}"`);
  }
}

/**
 * `coercedTo <enum> (value: { <field> = value; }) (submodule …)`: the enum alternative of a
 * union becomes the object with that one field, so Nix code reads one shape.
 */
function coercedUnion(options: z.ZodType[], field: string): NixExpr {
  const bare = options.find((option) => defOf(option).type === "enum");
  const object = options.find((option) => defOf(option).type === "object");
  if (options.length !== 2 || bare === undefined || object === undefined || !(field in objectShape(object))) {
    throw new Error(`internal: nixCoerceTo "${field}" needs a union of an enum and an object with that field`);
  }
  return n.call(types("coercedTo"), typeFor(bare), n.fn("value", n.attrs({ [field]: n.v("value") })), typeFor(object));
}

function objectShape(schema: z.ZodType): Record<string, z.ZodType> {
  const def = defOf(schema);
  if (def.type !== "object") throw new Error(`internal: expected a zod object, got ${String(def.type)}`);
  return def.shape as Record<string, z.ZodType>;
}

function defOf(schema: z.ZodType): Record<string, unknown> & { type: string } {
  return (schema as unknown as { _zod: { def: Record<string, unknown> & { type: string } } })._zod.def;
}

function metaOf(schema: z.ZodType): ForageMeta {
  return (schema.meta() as ForageMeta | undefined) ?? {};
}

function lib(name: string): NixExpr {
  return n.sel(n.v("lib"), name);
}

function types(name: string): NixExpr {
  return n.sel(n.v("lib"), "types", name);
}
