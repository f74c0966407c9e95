/**
 * Checks values (as JSON from `nix-instantiate --eval --json`) against option declarations
 * evaluated with the stand-in lib (test/nix/stand-in/lib.nix), where each option is data:
 * `{ _option: true, type: { name, … }, default?, description }`. This is the part of the module
 * system's type checking the tests can run without nixpkgs.
 */
export interface OptionType {
  name: string;
  values?: unknown[];
  elem?: OptionType;
  left?: OptionType;
  right?: OptionType;
  options?: Record<string, OptionDecl>;
}

export interface OptionDecl {
  _option: true;
  type: OptionType;
  default?: unknown;
  description: string;
}

/** Returns one message per mismatch, each naming the option path; empty when all values fit. */
export function checkOptionValues(options: Record<string, OptionDecl>, values: Record<string, unknown>, path = ""): string[] {
  const problems: string[] = [];
  for (const [name, value] of Object.entries(values)) {
    const decl = options[name];
    if (decl === undefined) problems.push(`${path}${name}: no such option`);
    else problems.push(...checkType(decl.type, value, `${path}${name}`));
  }
  for (const [name, decl] of Object.entries(options)) {
    if (!(name in values) && !("default" in decl)) problems.push(`${path}${name}: required option has no value and no default`);
  }
  return problems;
}

function checkType(type: OptionType, value: unknown, path: string): string[] {
  const fail = (what: string): string[] => [`${path}: expected ${what}, got ${JSON.stringify(value)?.slice(0, 80)}`];
  switch (type.name) {
    case "str":
      return typeof value === "string" ? [] : fail("a string");
    case "int":
      return Number.isInteger(value) ? [] : fail("an integer");
    case "bool":
      return typeof value === "boolean" ? [] : fail("a boolean");
    case "package":
      return typeof value === "string" && value.startsWith("/nix/store/") ? [] : fail("a package (store path)");
    case "path":
      return typeof value === "string" && value.startsWith("/") ? [] : fail("a path");
    case "enum":
      return (type.values ?? []).includes(value) ? [] : fail(`one of ${JSON.stringify(type.values)}`);
    case "nullOr":
      return value === null ? [] : checkType(required(type.elem), value, path);
    case "listOf":
      return Array.isArray(value) ? value.flatMap((item, i) => checkType(required(type.elem), item, `${path}[${i}]`)) : fail("a list");
    case "attrsOf":
      return isRecord(value)
        ? Object.entries(value).flatMap(([key, item]) => checkType(required(type.elem), item, `${path}.${key}`))
        : fail("an attribute set");
    case "either":
      return checkType(required(type.left), value, path).length === 0 ? [] : checkType(required(type.right), value, path);
    case "submodule":
      return isRecord(value) ? checkOptionValues(type.options ?? {}, value, `${path}.`) : fail("a submodule value");
    default:
      return [`${path}: unknown option type ${type.name}`];
  }
}

function required(type: OptionType | undefined): OptionType {
  if (type === undefined) throw new Error("option type without element type");
  return type;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
