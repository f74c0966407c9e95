import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A package the test registry serves: its lock-file integrity and the bytes it hands out. */
export interface PublishedPackage {
  name: string;
  version: string;
  integrity: string;
}

/**
 * A real npm registry's two endpoints on loopback, for fetchers that ask npm: the packument
 * (`GET /<name>`, scoped names %2f-encoded as npm sends them) and the tarball. Packages are real
 * tarballs made by `npm pack`, unique per run. `tamper()` swaps a package's tarball for other
 * bytes and announces their integrity, as a compromised mirror would (npm itself then accepts
 * them; only the lock's integrity can tell).
 */
export class TestNpmRegistry {
  private readonly dir = mkdtempSync(join(tmpdir(), "forage-registry-"));
  private readonly tarballs = new Map<string, Buffer>();
  private readonly packuments = new Map<string, object>();
  private server: Server | undefined;
  /** Requests as received (method and path). */
  readonly requests: string[] = [];

  get url(): string {
    return `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}/`;
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const path = decodeURIComponent((request.url ?? "/").split("?")[0] ?? "/");
      this.requests.push(`${request.method ?? "?"} ${path}`);
      const tarball = this.tarballs.get(path);
      const packument = this.packuments.get(path.slice(1));
      if (tarball !== undefined) {
        response.writeHead(200, { "content-type": "application/octet-stream" }).end(tarball);
      } else if (packument !== undefined) {
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(packument));
      } else {
        response.writeHead(404, { "content-type": "application/json" }).end('{"error":"not found"}');
      }
    });
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
  }

  /** Makes a one-file package with `npm pack` and publishes it; returns what a lock would record. */
  publish(name: string, version: string): PublishedPackage {
    const bytes = this.pack(name, version);
    const integrity = `sha512-${createHash("sha512").update(bytes).digest("base64")}`;
    const tarballPath = this.tarballPath(name, version);
    this.tarballs.set(tarballPath, bytes);
    this.packuments.set(name, {
      name,
      "dist-tags": { latest: version },
      versions: {
        [version]: { name, version, dist: { tarball: `${this.url.slice(0, -1)}${tarballPath}`, integrity } },
      },
    });
    return { name, version, integrity };
  }

  /** Serves other bytes for a published package, with a packument that vouches for them. */
  tamper(name: string, version: string): void {
    this.publish(name, version);
  }

  private pack(name: string, version: string): Buffer {
    const source = join(this.dir, `src-${Math.random().toString(36).slice(2)}`);
    mkdirSync(source, { recursive: true });
    writeFileSync(join(source, "package.json"), JSON.stringify({ name, version, description: `run ${Math.random()}` }));
    writeFileSync(join(source, "index.js"), "module.exports = 42;\n");
    const file = execFileSync("npm", ["pack", "--silent", "--pack-destination", source], {
      cwd: source,
      encoding: "utf8",
      env: { ...process.env, npm_config_update_notifier: "false" },
    }).trim();
    return readFileSync(join(source, file));
  }

  private tarballPath(name: string, version: string): string {
    return `/${name}/-/${name.split("/").pop() ?? name}-${version}.tgz`;
  }

  /** The bytes of a published package's tarball. */
  tarball(name: string, version: string): Buffer {
    const bytes = this.tarballs.get(this.tarballPath(name, version));
    if (bytes === undefined) throw new Error(`${name}@${version} was not published`);
    return bytes;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server === undefined ? resolve() : this.server.close(() => resolve())));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
