/**
 * A package's two spellings: the config and forage.json write a nixpkgs attribute path as one
 * dotted string, the model (and the Nix it becomes) holds its segments. Converted here only, so
 * every reader agrees on what a segment is. Segments never contain a dot (packageRef's rule).
 *
 * @example splitPackagePath("python3Packages.black") // ["python3Packages", "black"]
 */
export function splitPackagePath(ref: string): string[] {
  return ref.split(".");
}

/** The inverse of splitPackagePath. @example joinPackagePath(["python3Packages", "black"]) // "python3Packages.black" */
export function joinPackagePath(path: readonly string[]): string {
  return path.join(".");
}
