import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isRoot } from "../support/tools.js";
import { makeTempDir, removeTempDir, runCli } from "./run-cli.js";

/*
 * GIVEN a config written with the reference's spellings (proxyUrl, allowedHosts), every command
 * that loads it prints one note per spelling on stderr, `file:line:col: path: note: …`, and
 * carries on: the exit status, stdout and --json output are those of the same config in Forage's
 * spelling.
 */

let dir: string;
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  await removeTempDir(dir);
});

const referenceYaml = [
  "user: alice", //                                  1
  "proxyUrl: http://proxy.example.org:8080", //      2
  "templates:", //                                   3
  "  claude:", //                                    4
  "    network: restricted", //                      5
  "    allowedHosts: [api.example.org]", //          6
  "",
].join("\n");

const canonicalYaml = [
  "user: alice",
  "proxy: { url: http://proxy.example.org:8080 }",
  "templates:",
  "  claude:",
  "    network: { mode: restricted, allow: [api.example.org] }",
  "",
].join("\n");

const notes =
  "forage.yaml:2:1: proxyUrl: note: proxyUrl is the reference's spelling of proxy.url, which has no effect here: agents reach Forage's API proxy on their sandbox's own link (set proxy.port, and auth on the agents); remove it\n" +
  'forage.yaml:6:5: templates.claude.allowedHosts: note: allowedHosts is the reference\'s spelling of network.allow: write network: { mode: "restricted", allow: [...] }\n';

/** Writes both spellings as `<dir>/reference/forage.yaml` and `<dir>/canonical/forage.yaml`. */
async function writeBoth(): Promise<{ reference: string; canonical: string }> {
  const [reference, canonical] = [join(dir, "reference"), join(dir, "canonical")];
  await mkdir(reference);
  await mkdir(canonical);
  await writeFile(join(reference, "forage.yaml"), referenceYaml);
  await writeFile(join(canonical, "forage.yaml"), canonicalYaml);
  return { reference, canonical };
}

/** Path → contents of every file under `root`. */
async function snapshot(root: string): Promise<Record<string, string>> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  const files: Record<string, string> = {};
  for (const entry of entries.filter((e) => e.isFile())) {
    const path = join(entry.parentPath, entry.name);
    files[relative(root, path)] = await readFile(path, "utf8");
  }
  return files;
}

describe("a config in the reference's spelling", () => {
  it("validate: exits 0, prints the usual line on stdout and each note on stderr", async () => {
    const { reference } = await writeBoth();
    const result = await runCli(["validate"], { cwd: reference });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("forage.yaml: valid (1 template: claude)\n");
    expect(result.stderr).toBe(notes);
  });

  it("validate --json: stdout is the same JSON as for Forage's spelling; the notes stay on stderr", async () => {
    const { reference, canonical } = await writeBoth();
    const [fromReference, fromCanonical] = [
      await runCli(["validate", "--json"], { cwd: reference }),
      await runCli(["validate", "--json"], { cwd: canonical }),
    ];
    expect(fromReference.exitCode).toBe(0);
    expect(fromReference.stdout).toBe(fromCanonical.stdout);
    expect(JSON.parse(fromReference.stdout)).toEqual({ valid: true, config: "forage.yaml", templates: ["claude"] });
    expect(fromReference.stderr).toBe(notes);
    // Forage's own spelling of the URL still says that it does nothing.
    expect(fromCanonical.stderr).toBe(
      "forage.yaml:2:10: proxy.url: note: proxy.url has no effect here: agents reach Forage's API proxy on their sandbox's own link (set proxy.port, and auth on the agents); remove it\n",
    );
  });

  it("generate: writes the same files as for Forage's spelling, byte for byte, and prints the notes", async () => {
    const { reference, canonical } = await writeBoth();
    const [fromReference, fromCanonical] = [
      await runCli(["generate", "-o", "out"], { cwd: reference }),
      await runCli(["generate", "-o", "out"], { cwd: canonical }),
    ];
    expect(fromReference.exitCode).toBe(0);
    expect(fromReference.stdout).toBe(fromCanonical.stdout);
    expect(fromReference.stderr).toBe(notes);
    const files = await snapshot(join(reference, "out"));
    expect(files).toEqual(await snapshot(join(canonical, "out")));
    expect(files["templates/claude.nix"]).toContain('allow = [ "api.example.org" ];');
  });

  it("generate --json: stdout is only the JSON; the notes stay on stderr", async () => {
    const { reference } = await writeBoth();
    const result = await runCli(["generate", "--json", "-o", "out"], { cwd: reference });
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ out: "out" });
    expect(result.stderr).toBe(notes);
  });

  it("templates: lists the template as restricted and prints the notes", async () => {
    const { reference } = await writeBoth();
    const result = await runCli(["templates", "--json"], { cwd: reference });
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([
      expect.objectContaining({ name: "claude", network: "restricted", allow: ["api.example.org"] }),
    ]);
    expect(result.stderr).toBe(notes);
  });

  it.skipIf(!isRoot())(
    "sandbox commands given the config with --config (here ps, as root) print the notes too",
    async () => {
      const { reference } = await writeBoth();
      const result = await runCli(["--config", "forage.yaml", "ps", "--json"], {
        cwd: reference,
        env: { FORAGE_STATE_DIR: join(dir, "state") },
      });
      expect(result.exitCode).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual([]);
      expect(result.stderr).toBe(notes);
    },
  );

  it("a refusal exits 6 and says how to fix it, at the alias's position", async () => {
    await writeFile(
      join(dir, "forage.yaml"),
      ["user: alice", "templates:", "  t:", "    network: full", "    allowedHosts: [api.example.org]", ""].join("\n"),
    );
    const result = await runCli(["validate"], { cwd: dir });
    expect(result.exitCode).toBe(6);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      'forage.yaml:5:5: templates.t.allowedHosts: allowedHosts only applies to network "restricted", and this template\'s network is "full": write network: { mode: "restricted", allow: [...] } with these hosts, or remove allowedHosts\n' +
        "forage-ctl: 1 problem in the config\n",
    );
  });
});
