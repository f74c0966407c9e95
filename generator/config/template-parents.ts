/**
 * The parents a template names in `extends`, in order. Its own module because both the checks
 * (existence, cycles) and the flattening read it, and the checks run the flattening.
 *
 * @example parentsOf(["base", "tools"]) // ["base", "tools"]; parentsOf("base") // ["base"]
 */
export function parentsOf(extendsValue: string | string[] | undefined): string[] {
  if (extendsValue === undefined) return [];
  return Array.isArray(extendsValue) ? extendsValue : [extendsValue];
}
