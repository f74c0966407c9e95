import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { makeTempDir, removeTempDir } from "../cli/run-cli.js";
import {
  aptSource,
  configuredRegistryHosts,
  deb822SourceUris,
  hostOfUrl,
  oneLineSourceUris,
} from "../support/registry-hosts.js";

/*
 * How the registry-host scan learns its hosts from this machine's configuration. The fixtures
 * use example names: this file is scanned like any other.
 */

describe("apt's one-line sources", () => {
  it("give the URI of each deb and deb-src line, after options in brackets, and skip comments", () => {
    const text = [
      "# deb http://commented.example.org/debian bookworm main",
      "deb http://mirror.example.org/debian bookworm main",
      "deb-src [ arch=amd64 signed-by=/usr/share/keyrings/k.gpg ] https://src.example.org/debian bookworm main # trailing",
      "",
      "   deb [trusted=yes] mirror+http://list.example.net/mirrors.txt bookworm main",
    ].join("\n");
    expect(oneLineSourceUris(text)).toEqual([
      "http://mirror.example.org/debian",
      "https://src.example.org/debian",
      "mirror+http://list.example.net/mirrors.txt",
    ]);
  });
});

describe("apt's deb822 sources", () => {
  it("give every URI of every enabled stanza, continuation lines included, and skip comments", () => {
    const text = [
      "Types: deb",
      "# http://commented.example.org/debian",
      "URIs: http://one.example.org/debian",
      "  https://two.example.org/debian",
      "Suites: bookworm",
      "",
      "Types: deb",
      "Enabled: no",
      "URIs: http://off.example.org/debian",
      "",
      "types: deb-src",
      "uris: https://three.example.org/debian",
    ].join("\n");
    expect(deb822SourceUris(text)).toEqual([
      "http://one.example.org/debian",
      "https://two.example.org/debian",
      "https://three.example.org/debian",
    ]);
  });
});

describe("a source URL's host", () => {
  it("is the host of an http, https or ftp URL, through apt's transport prefixes", () => {
    expect(
      ["https://Registry.Example.org/", "mirror+http://list.example.net/m.txt", "ftp://ftp.example.org/debian"].map(
        hostOfUrl,
      ),
    ).toEqual(["registry.example.org", "list.example.net", "ftp.example.org"]);
  });

  it("is none for local files, cdroms, IP literals and single-label names (they would match ordinary words)", () => {
    expect(
      [
        "file:/srv/mirror",
        "cdrom:[Debian]/",
        "http://10.0.0.5/debian",
        "http://[fd00::1]/debian",
        "http://localhost:4873/",
        "not a url",
      ].map(hostOfUrl),
    ).toEqual([undefined, undefined, undefined, undefined, undefined, undefined]);
  });
});

describe("apt's source files", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await makeTempDir();
  });
  afterEach(async () => {
    await removeTempDir(dir);
  });

  it("are sources.list and sources.list.d's *.list and *.sources, not files apt ignores", async () => {
    await mkdir(join(dir, "sources.list.d"));
    await writeFile(join(dir, "sources.list"), "deb http://a.example.org/debian bookworm main\n");
    await writeFile(join(dir, "sources.list.d/b.list"), "deb http://b.example.org/debian bookworm main\n");
    await writeFile(join(dir, "sources.list.d/c.sources"), "Types: deb\nURIs: http://c.example.org/debian\n");
    await writeFile(join(dir, "sources.list.d/d.sources.disabled"), "Types: deb\nURIs: http://d.example.org/debian\n");
    expect(aptSource(dir)).toEqual({
      source: `apt sources in ${dir}`,
      hosts: ["a.example.org", "b.example.org", "c.example.org"],
    });
  });

  it("are missing when none names a host", async () => {
    expect(aptSource(dir)).toBeUndefined();
  });
});

describe("the configured registry hosts", () => {
  const npm = { source: "npm", hosts: ["registry.example.org"] };
  const apt = { source: "apt", hosts: ["deb.example.org", "registry.example.org"] };

  it("are every source's hosts, once each", () => {
    expect(configuredRegistryHosts({ npm, apt }, true)).toEqual(["deb.example.org", "registry.example.org"]);
  });

  it("fail under CI=true when a source is missing (ARCHITECTURE.md rule 11), rather than scan for less", () => {
    expect(() => configuredRegistryHosts({ npm, apt: undefined }, true)).toThrow(
      /^CI=true and no package-registry hosts from apt:/,
    );
  });

  it("locally, say which source is missing and go on with the others", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    expect(configuredRegistryHosts({ npm: undefined, apt }, false)).toEqual(apt.hosts);
    expect(warn).toHaveBeenCalledWith("skipping part of the scan: no package-registry hosts from npm");
    warn.mockRestore();
  });
});
