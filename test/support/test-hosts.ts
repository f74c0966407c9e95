import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { packageRoot } from "../../runtime/core/package-root.js";

/** A record set of the test DNS zone; `ttl` defaults to 60. */
export interface ZoneEntry {
  A?: string[];
  AAAA?: string[];
  CNAME?: string;
  ttl?: number;
}

/**
 * Test hosts living in a network namespace this test makes, the only places (with loopback) its
 * traffic may go: `ip netns add <ns>`, a veth to the host (`vt-<ns>`, host end <prefix>.1 and
 * <prefix6>::1), several addresses on the far end, and servers there (test-host-server.mjs):
 * authoritative DNS on `dns`, TCP echo on `tcpPorts`, TLS echo on 443, UDP echo on `udpPort`.
 */
export class TestHosts {
  readonly dir = mkdtempSync(join(tmpdir(), "forage-hosts-"));
  readonly zoneFile = join(this.dir, "zone.json");
  readonly queryLog = join(this.dir, "queries.log");
  readonly dns: string;
  readonly dns6: string;
  /** Addresses of the test hosts: seven IPv4 (v4[0..6]) and two IPv6 (v6[0..1]). */
  readonly v4: string[];
  readonly v6: string[];
  /** Plain TCP echo ports; 443 is a TLS echo server. */
  readonly tcpPorts = [80, 8080];
  readonly udpPort = 9000;
  /** Reads everything, then answers with the byte count (throughput). */
  readonly sinkPort = 9100;
  private server: ChildProcess | undefined;

  /** `prefix`: three octets of a /24 no sandbox uses, e.g. "10.221.250"; `prefix6`: e.g. "fd99:221". */
  constructor(
    readonly namespace: string,
    readonly prefix: string,
    readonly prefix6: string,
  ) {
    this.dns = `${prefix}.53`;
    this.dns6 = `${prefix6}::53`;
    this.v4 = [10, 11, 12, 13, 14, 15, 16].map((n) => `${prefix}.${n}`);
    this.v6 = [10, 11].map((n) => `${prefix6}::${n}`);
  }

  get hostInterface(): string {
    return `vt-${this.namespace}`;
  }

  async start(zone: Record<string, ZoneEntry>): Promise<void> {
    // Again after a stop (a test file whose describes each start and stop the same hosts).
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.setZone(zone);
    writeFileSync(this.queryLog, "");
    const ns = this.namespace;
    this.removeStale();
    this.removeHostLink();
    ip("netns", "add", ns);
    ip("link", "add", this.hostInterface, "type", "veth", "peer", "name", "eth0", "netns", ns);
    ip("addr", "add", `${this.prefix}.1/24`, "dev", this.hostInterface);
    ip("-6", "addr", "add", `${this.prefix6}::1/64`, "dev", this.hostInterface, "nodad");
    ip("link", "set", this.hostInterface, "up");
    ip("-n", ns, "link", "set", "lo", "up");
    for (const address of [this.dns, ...this.v4]) ip("-n", ns, "addr", "add", `${address}/24`, "dev", "eth0");
    for (const address of [this.dns6, ...this.v6])
      ip("-n", ns, "-6", "addr", "add", `${address}/64`, "dev", "eth0", "nodad");
    ip("-n", ns, "link", "set", "eth0", "up");
    const tlsKey = join(this.dir, "tls.key");
    const tlsCert = join(this.dir, "tls.crt");
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-subj",
        "/CN=forage test host",
        "-days",
        "1",
        "-keyout",
        tlsKey,
        "-out",
        tlsCert,
      ],
      { stdio: "ignore" },
    );
    const spec = {
      dnsAddresses: [this.dns, this.dns6],
      addresses: [...this.v4, ...this.v6],
      zoneFile: this.zoneFile,
      queryLog: this.queryLog,
      tcpPorts: this.tcpPorts,
      udpPort: this.udpPort,
      sinkPort: this.sinkPort,
      tlsKey,
      tlsCert,
    };
    const server = spawn(
      "ip",
      [
        "netns",
        "exec",
        ns,
        process.execPath,
        join(packageRoot(), "test/support/test-host-server.mjs"),
        JSON.stringify(spec),
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.stdout?.once("data", () => resolve());
      server.once("exit", (code) => reject(new Error(`test host server exited with ${String(code)}`)));
    });
  }

  /**
   * A run killed midway (a CI timeout) leaves its namespace behind, and `ip netns add` would then
   * fail every later run: an empty one is removed. One with processes in it belongs to a run going
   * on now, and two runs of one test file collide: said so instead.
   */
  private removeStale(): void {
    if (!existsSync(join("/run/netns", this.namespace))) return;
    const pids = execFileSync("ip", ["netns", "pids", this.namespace], { encoding: "utf8" }).trim();
    if (pids !== "")
      throw new Error(
        `test hosts: namespace ${this.namespace} is in use (pids ${pids.split("\n").join(", ")}): is this test file running twice at once?`,
      );
    ip("netns", "delete", this.namespace);
    this.removeHostLink();
  }

  /**
   * Deletes the host's end of the veth, and waits until it is gone. A deleted namespace takes its
   * devices with it only later (the kernel cleans namespaces up in the background): a start right
   * after a stop (the next describe of the same file, seen in CI) found the old link still there.
   */
  private removeHostLink(): void {
    for (let attempt = 0; attempt < 100; attempt++) {
      try {
        ip("link", "show", "dev", this.hostInterface);
      } catch {
        return;
      }
      try {
        ip("link", "delete", this.hostInterface);
      } catch {
        // being removed with its namespace: looked at again
      }
      execFileSync("sleep", ["0.1"]);
    }
    throw new Error(`test hosts: ${this.hostInterface} is still there 10 s after it was deleted`);
  }

  setZone(zone: Record<string, ZoneEntry>): void {
    writeFileSync(this.zoneFile, JSON.stringify(zone));
  }

  /** Names the test DNS server was asked, in order. */
  queries(): string[] {
    return readFileSync(this.queryLog, "utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => line.split(" ")[0] ?? "");
  }

  stop(): void {
    this.server?.kill("SIGKILL");
    // The link first: deleting one end of a veth removes the pair at once, the namespace's later.
    this.removeHostLink();
    try {
      ip("netns", "delete", this.namespace);
    } catch {
      // never made
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function ip(...args: string[]): void {
  execFileSync("ip", args, { stdio: ["ignore", "ignore", "pipe"] });
}
