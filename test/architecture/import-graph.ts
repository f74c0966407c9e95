import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

/** One import of a project file by another: what it names, and when (if ever) it loads it. */
export interface ImportEdge {
  from: string;
  to: string;
  /** `import type` / `export type`: erased by the compiler, so no module loads another. */
  typeOnly: boolean;
  /** `import("…")`: loaded when the code runs there, not when the importing module loads. */
  lazy: boolean;
}

const sourceFolders = ["cli", "runtime", "generator"];
/** Static imports and re-exports (type-only ones marked) and dynamic `import("…")`. */
const importPattern =
  /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** Every .ts file of the product (not tests, not benchmarks), relative to `root`. */
export function sourceFiles(root: string): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir))) {
      const path = join(dir, entry);
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else if (path.endsWith(".ts") && !path.endsWith(".d.ts")) files.push(path);
    }
  };
  for (const folder of sourceFolders) walk(folder);
  return files.sort();
}

/** The project-internal imports of every source file (package imports are not edges). */
export function importEdges(root: string): ImportEdge[] {
  return sourceFiles(root).flatMap((from) => {
    const text = readFileSync(join(root, from), "utf8");
    return [...text.matchAll(importPattern)].flatMap((match) => {
      const specifier = match[3] ?? match[4] ?? "";
      if (!specifier.startsWith(".")) return [];
      const to = normalize(join(dirname(from), specifier)).replace(/\.js$/, ".ts");
      return [{ from, to, typeOnly: match[2] !== undefined, lazy: match[4] !== undefined }];
    });
  });
}

/** The folder a file belongs to for layering: `runtime/core`, `generator/emit`, `cli`, `runtime/gates/push-gate`. */
export function folderOf(file: string): string {
  const parts = file.split("/");
  if (parts[0] === "cli") return "cli";
  // The gates are a family of folders, each ranked on its own: runtime/gates/network, …/shared.
  if (parts[0] === "runtime" && parts[1] === "gates" && parts.length > 3) return parts.slice(0, 3).join("/");
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : (parts[0] ?? file);
}

/** Strongly connected components with more than one member (each one a cycle), by Tarjan. */
export function cycles(nodes: readonly string[], edges: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of edges.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(to) ?? 0));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node) ?? 0, index.get(to) ?? 0));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = member === node ? undefined : stack.pop()) {
      onStack.delete(member);
      component.push(member);
    }
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of nodes) if (!index.has(node)) visit(node);
  return found;
}

/** The files a module loads as it loads, itself included (type-only and lazy imports load nothing then). */
export function loadedBy(start: string, edges: readonly ImportEdge[]): Set<string> {
  const loaded = new Set<string>([start]);
  const pending = [start];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    for (const edge of edges) {
      if (edge.from === file && !edge.typeOnly && !edge.lazy && !loaded.has(edge.to)) {
        loaded.add(edge.to);
        pending.push(edge.to);
      }
    }
  }
  return loaded;
}

/** The npm packages the given files import at run time. */
export function packagesImported(root: string, files: Iterable<string>): Set<string> {
  const packages = new Set<string>();
  for (const file of files) {
    for (const match of readFileSync(join(root, file), "utf8").matchAll(importPattern)) {
      const specifier = match[3] ?? match[4] ?? "";
      if (match[2] !== undefined || specifier.startsWith(".") || specifier.startsWith("node:")) continue;
      packages.add(
        specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : (specifier.split("/")[0] ?? specifier),
      );
    }
  }
  return packages;
}
