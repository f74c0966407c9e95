import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { aptSource, configuredRegistryHosts, npmRegistrySource } from "../support/registry-hosts.js";

/*
 * ARCHITECTURE.md rule 15: the repository names no package-registry host. Installers use the sources the
 * machine is already configured with, and fixtures, goldens and examples use example names
 * (`registry.example.org`), so nothing here quietly depends on, or advertises, a real registry.
 * The hosts looked for are this machine's own (npm's registry, apt's sources), read now: a list
 * of real hosts written here would itself be a file that names them.
 */

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

const registryHosts = configuredRegistryHosts({ "npm's registry": npmRegistrySource(), "apt's sources": aptSource() });

/** A pattern for `host` itself or any name below it (files.X), not a longer name that merely ends the same way (`my-X`) nor the start of one (`X.example`). */
function hostPattern(host: string): RegExp {
  return new RegExp(`(?<![a-z0-9-])${host.replaceAll(".", "\\.")}(?![a-z0-9-]|\\.[a-z0-9])`, "i");
}

const hostPatterns = registryHosts.map((host) => ({ host, pattern: hostPattern(host) }));

/** `line: host` for every line of `text` that names a registry host. */
function registryHostsIn(text: string): string[] {
  return text
    .split("\n")
    .flatMap((line, index) =>
      hostPatterns.filter(({ pattern }) => pattern.test(line)).map(({ host }) => `${index + 1}: ${host}`),
    );
}

/** Committed files (as in the working tree), except the lock file, which records where npm fetched from. */
function committedFiles(): string[] {
  const listed = execFileSync("git", ["ls-files", "-z"], { cwd: repoRoot, encoding: "utf8" });
  return listed.split("\0").filter((path) => path !== "" && path !== "package-lock.json");
}

/** `file:line: host` for every committed text file's mention of a registry host. */
function scanRepository(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const path of committedFiles()) {
    let text: string;
    try {
      text = readFileSync(join(repoRoot, path), "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue; // deleted, not yet committed
      throw error;
    }
    if (text.includes("\0")) continue; // binary
    const hits = registryHostsIn(text);
    if (hits.length > 0) found.set(path, hits);
  }
  return found;
}

describe.skipIf(registryHosts.length === 0)("package-registry hosts in the repository", () => {
  it("are found by the scan in the forms they are written (control: the scan can fail)", () => {
    for (const host of registryHosts) {
      const planted = [
        `npm config set registry https://${host}/`,
        `deb http://${host}/debian bookworm main`,
        `curl -O https://files.${host}/packages/x.whl`,
        `allow: ["*.${host}:443"]`,
        `image: ${host.toUpperCase()}/owner/image`,
        `allow: [registry.example.org, files.example.org:443, my-${host}, ${host}.example, ${host}-mirror.example.org]`,
      ].join("\n");
      expect(registryHostsIn(planted).filter((hit) => hit.endsWith(`: ${host}`))).toEqual(
        [1, 2, 3, 4, 5].map((line) => `${line}: ${host}`),
      );
    }
  });

  it("are named by no committed file (fixtures, goldens and examples use example names)", () => {
    const found = [...scanRepository()].flatMap(([path, hits]) => hits.map((hit) => `${path}:${hit}`));
    expect(found, "use a name under .example.org / .example instead").toEqual([]);
  });
});
