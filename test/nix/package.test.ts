import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nixBuild, nixBuildAsync, nixEvalJson, nixString, repoRoot, standInDir } from "../support/nix.js";
import { flakePrelude } from "../support/nixos-routes.js";
import { TestNpmRegistry } from "../support/test-npm-registry.js";
import { toolsAvailable } from "../support/tools.js";

/*
 * The flake's forage-ctl package (nix/package.nix): built for real by the stand-in buildNpmPackage
 * from exactly the package's source set (so a directory the build needs and the set leaves out
 * fails it), with importNpmLock's requirements on the lock modelled; and its registry fetcher
 * (nix/npm-registry-tarball.nix) run for real against a registry on loopback.
 */
const tools = toolsAvailable("nix-build", "nix-instantiate", "npm");
const version = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string }).version;

describe.skipIf(!tools.run)("nix build .#forage-ctl", () => {
  it("builds from the lock file and the source set, and the installed forage-ctl works", () => {
    const out = nixBuild(`let ${flakePrelude} in self.packages.\${system}.forage-ctl`);
    const forage = (...args: string[]): string =>
      execFileSync(join(out, "bin/forage-ctl"), args, { cwd: tmpdir(), encoding: "utf8" });
    expect(forage("--version").trim()).toBe(version);
    expect(forage("validate", join(repoRoot, "examples/multi-agent/forage.yaml"))).toContain(
      "valid (2 templates: base, trio)",
    );
    // What the runtime reads from the package at run time is shipped (package.json `files`).
    for (const file of [
      "runtime/assets/forage-agent",
      "templates/init/forage.config.ts.hbs",
      "modules/container/default.nix",
      "dist/bin/main.js",
    ]) {
      expect(() => readFileSync(join(out, "lib/node_modules/forage", file)), file).not.toThrow();
    }
    // The native helpers are built by the package's own build (static: they run in sandbox roots).
    for (const helper of [
      "forage-enter",
      "forage-set-elements",
      "forage-mounts",
      "forage-git-relay",
      "forage-exec-only",
    ]) {
      const path = join(out, "lib/node_modules/forage/dist/native", helper);
      expect(statSync(path).mode & 0o111, helper).not.toBe(0);
      expect(hasInterpreter(readFileSync(path)), `${helper} names a dynamic loader`).toBe(false);
    }
    // The push gate's relay runs from the package: it answers a wrong call with its usage.
    const relay = spawnSync(join(out, "lib/node_modules/forage/dist/native/forage-git-relay"), [], {
      encoding: "utf8",
    });
    expect([relay.status, relay.stderr]).toEqual([64, "usage: forage-git-relay SERVICE REMOTE SOCKET\n"]);
  }, 300_000);
});

/** Whether a 64-bit little-endian ELF file has a PT_INTERP program header (is dynamically linked). */
function hasInterpreter(elf: Buffer): boolean {
  expect(elf.subarray(0, 4).toString("latin1")).toBe("\x7fELF");
  const phoff = Number(elf.readBigUInt64LE(0x20));
  const phentsize = elf.readUInt16LE(0x36);
  const phnum = elf.readUInt16LE(0x38);
  for (let i = 0; i < phnum; i++) if (elf.readUInt32LE(phoff + i * phentsize) === 3) return true;
  return false;
}

/** Evaluates importNpmLock (stand-in) over a lock of the given packages; returns the patched entries. */
function importLock(
  root: string,
  packages: Record<string, object>,
  dependencies: Record<string, string>,
  overrides = "{ }",
): unknown {
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, "package.json"), JSON.stringify({ name: "demo", version: "1.0.0", dependencies }));
  writeFileSync(
    join(root, "package-lock.json"),
    JSON.stringify({ name: "demo", lockfileVersion: 3, packages: { "": { name: "demo" }, ...packages } }),
  );
  return nixEvalJson(
    `let pkgs = import ${nixString(standInDir)} { }; in builtins.fromJSON (pkgs.importNpmLock { npmRoot = /. + ${nixString(root)}; packageSourceOverrides = ${overrides}; }).lock`,
  );
}

describe.skipIf(!tools.run)("the stand-in importNpmLock refuses what importNpmLock refuses", () => {
  let root = "";
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "forage-npmlock-"));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const integrity = "sha512-AAAA";

  it("refuses a dependency whose lock entry has no resolved URL and no override", () => {
    expect(() =>
      importLock(join(root, "a"), { "node_modules/left": { version: "1.0.0", integrity } }, { left: "^1" }),
    ).toThrow("attribute 'resolved' missing");
  });

  it("refuses a resolved URL without integrity, and a scheme it cannot fetch", () => {
    expect(() =>
      importLock(
        join(root, "b"),
        { "node_modules/left": { version: "1.0.0", resolved: "https://registry.example.org/left/-/left-1.0.0.tgz" } },
        { left: "^1" },
      ),
    ).toThrow("attribute 'integrity' missing");
    expect(() =>
      importLock(
        join(root, "c"),
        { "node_modules/left": { version: "1.0.0", resolved: "mirror://npm/left/-/left-1.0.0.tgz", integrity } },
        { left: "^1" },
      ),
    ).toThrow("Unsupported URL scheme: mirror");
  });

  it("refuses a nested entry with no source (the offline install would fail)", () => {
    const packages = {
      "node_modules/left": { version: "1.0.0", integrity },
      "node_modules/left/node_modules/pad": { version: "2.0.0", integrity },
    };
    expect(() =>
      importLock(join(root, "d"), packages, { left: "^1" }, `{ "node_modules/left" = "/nix/store/x-left.tgz"; }`),
    ).toThrow("ENOTCACHED");
  });

  it("takes an override as the entry's source", () => {
    const patched = importLock(
      join(root, "e"),
      { "node_modules/left": { version: "1.0.0", integrity } },
      { left: "^1" },
      `{ "node_modules/left" = "/nix/store/x-left.tgz"; }`,
    );
    expect(patched).toEqual({
      "node_modules/left": { version: "1.0.0", integrity, resolved: "file:/nix/store/x-left.tgz" },
    });
  });

  it("refuses a source set naming a path that does not exist (lib.fileset)", () => {
    expect(() =>
      nixEvalJson(
        `let lib = import ${nixString(join(standInDir, "lib"))}; in lib.fileset.toSource { root = /. + ${nixString(root)}; fileset = lib.fileset.unions [ (/. + ${nixString(join(root, "missing"))}) ]; }`,
      ),
    ).toThrow(/lib.fileset.unions: Element 0 \(.*missing\) is a path that does not exist/);
  });
});

describe.skipIf(!tools.run)("nix/npm-registry-tarball.nix against a registry on loopback", () => {
  const registry = new TestNpmRegistry();
  beforeAll(() => registry.start());
  afterAll(() => registry.stop());

  /** Builds the fetcher for one lock entry, with npm pointed at the test registry. */
  function fetchEntry(path: string, entry: { version: string; integrity: string; name?: string }): Promise<string> {
    const expression = `let pkgs = import ${nixString(standInDir)} { }; in
      import ${nixString(join(repoRoot, "nix/npm-registry-tarball.nix"))} { inherit (pkgs) lib runCommand nodejs; } {
        path = ${nixString(path)}; entry = builtins.fromJSON ${nixString(JSON.stringify(entry))};
      }`;
    return nixBuildAsync(expression, { ...process.env, npm_config_registry: registry.url });
  }

  it("fetches a lock entry's tarball from the registry npm is configured with, byte for byte", async () => {
    const published = registry.publish("@forage-test/tiny", "1.0.0");
    const out = await fetchEntry("node_modules/@forage-test/tiny", published);
    expect(readFileSync(out)).toEqual(registry.tarball(published.name, published.version));
    expect(registry.requests).toContain("GET /@forage-test/tiny");
  });

  it("takes the package name of a nested entry from its path, and an alias's from its `name`", async () => {
    const nested = registry.publish("pad", "2.0.0");
    expect(readFileSync(await fetchEntry("node_modules/left/node_modules/pad", nested))).toEqual(
      registry.tarball("pad", "2.0.0"),
    );
    const real = registry.publish("real-thing", "3.0.0");
    expect(readFileSync(await fetchEntry("node_modules/alias", { ...real, name: "real-thing" }))).toEqual(
      registry.tarball("real-thing", "3.0.0"),
    );
  });

  it("refuses bytes that do not match the lock's integrity, even when the registry vouches for them", async () => {
    const published = registry.publish("left", "1.0.0");
    registry.tamper("left", "1.0.0");
    await expect(fetchEntry("node_modules/left", published)).rejects.toThrow(/hash mismatch/);
  });
});
