import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { repoRoot } from "../support/nix.js";

/*
 * scripts/debian-mirror.sh finds the Debian archive in the machine's own apt configuration, so the
 * installers follow a mirror or proxy and the repository names no archive host.
 */
const roots: string[] = [];
afterEach(() => roots.splice(0).forEach((root) => rmSync(root, { recursive: true, force: true })));

function mirrorOf(files: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  const root = mkdtempSync(join(tmpdir(), "forage-apt-"));
  roots.push(root);
  mkdirSync(join(root, "sources.list.d"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
  const run = spawnSync("bash", [join(repoRoot, "scripts/debian-mirror.sh")], {
    env: { PATH: process.env.PATH, APT_SOURCES_DIR: root },
    encoding: "utf8",
  });
  return { status: run.status, stdout: run.stdout.trim(), stderr: run.stderr };
}

describe("scripts/debian-mirror.sh", () => {
  it("takes the URI of the deb822 stanza that serves bookworm itself, whatever the field order", () => {
    const run = mirrorOf({
      "sources.list.d/debian.sources":
        "Types: deb\nURIs: http://security.mirror.example/debian-security\nSuites: bookworm-security\n\nSuites: bookworm bookworm-updates\nComponents: main\nURIs: http://mirror.example/debian\n",
    });
    expect(run).toMatchObject({ status: 0, stdout: "http://mirror.example/debian" });
  });

  it("reads one-line sources.list entries, options in brackets included", () => {
    const run = mirrorOf({
      "sources.list":
        "# comment\ndeb [arch=amd64 signed-by=/usr/share/keyrings/k.gpg] http://proxy.example:3142/debian bookworm main\n",
    });
    expect(run).toMatchObject({ status: 0, stdout: "http://proxy.example:3142/debian" });
  });

  it("ignores sources for other suites and fails, saying where to add a mirror, when none serves bookworm", () => {
    const run = mirrorOf({
      "sources.list.d/other.sources": "Types: deb\nURIs: http://other.example/apt\nSuites: nodistro\n",
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("no apt source for Debian bookworm");
  });
});
