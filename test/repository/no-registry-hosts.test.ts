import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/*
 * DESIGN rule 15: the repository names no package-registry host. Installers use the sources the
 * machine is already configured with, and fixtures, goldens and examples use example names
 * (`registry.example.org`), so nothing here quietly depends on, or advertises, a real registry.
 */

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const thisFile = relative(repoRoot, fileURLToPath(import.meta.url));

/** Real package-registry and package-mirror hosts; a name below one (e.g. files.X) counts too. */
const registryHosts = [
  // JavaScript
  "npmjs.org",
  "npmjs.com",
  "yarnpkg.com",
  "jsr.io",
  "deno.land",
  "unpkg.com",
  "jsdelivr.net",
  // Python
  "pypi.org",
  "pypi.python.org",
  "pythonhosted.org",
  "anaconda.org",
  "conda.io",
  // Rust, Go, Ruby, PHP, Elixir, .NET, Java, Perl
  "crates.io",
  "proxy.golang.org",
  "sum.golang.org",
  "rubygems.org",
  "packagist.org",
  "hex.pm",
  "nuget.org",
  "maven.org",
  "repo.maven.apache.org",
  "cpan.org",
  // Container images
  "docker.io",
  "hub.docker.com",
  "ghcr.io",
  "quay.io",
  "gcr.io",
  "pkg.dev",
  // Distributions and Nix
  "deb.debian.org",
  "security.debian.org",
  "ftp.debian.org",
  "archive.ubuntu.com",
  "security.ubuntu.com",
  "ports.ubuntu.com",
  "dl-cdn.alpinelinux.org",
  "cache.nixos.org",
  "channels.nixos.org",
  "releases.nixos.org",
];

const hostPatterns = registryHosts.map((host) => ({
  host,
  // The host itself or any name below it, not a longer name that merely ends the same way
  // (`my-npmjs.org`) and not the start of a longer name (`pypi.org.example`).
  pattern: new RegExp(`(?<![a-z0-9-])${host.replaceAll(".", "\\.")}(?![a-z0-9-]|\\.[a-z0-9])`, "i"),
}));

/** `line: host` for every line of `text` that names a registry host. */
function registryHostsIn(text: string): string[] {
  return text.split("\n").flatMap((line, index) => hostPatterns.filter(({ pattern }) => pattern.test(line)).map(({ host }) => `${index + 1}: ${host}`));
}

/** Committed files (as in the working tree), except the lock file, which records where npm fetched from. */
function committedFiles(): string[] {
  const listed = execFileSync("git", ["ls-files", "-z"], { cwd: repoRoot, encoding: "utf8" });
  return listed.split("\0").filter((path) => path !== "" && path !== "package-lock.json" && path !== thisFile);
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

describe("package-registry hosts in the repository", () => {
  it("are found by the scan in the forms they are written (control: the scan can fail)", () => {
    const planted = [
      "npm config set registry https://registry.npmjs.org/",
      "pip download --index-url https://pypi.org/simple black",
      "curl -O https://files.pythonhosted.org/packages/x.whl",
      "deb http://deb.debian.org/debian bookworm main",
      'allow: ["*.crates.io:443"]',
      "image: GHCR.IO/owner/image",
      "allow: [registry.example.org, files.example.org:443, pypi.example.org, my-npmjs.org, pypi.org.example]",
    ].join("\n");
    expect(registryHostsIn(planted)).toEqual(["1: npmjs.org", "2: pypi.org", "3: pythonhosted.org", "4: deb.debian.org", "5: crates.io", "6: ghcr.io"]);
  });

  it("are named by no committed file (fixtures, goldens and examples use example names)", () => {
    const found = [...scanRepository()].flatMap(([path, hits]) => hits.map((hit) => `${path}:${hit}`));
    expect(found, "use a name under .example.org / .example instead").toEqual([]);
  });
});
