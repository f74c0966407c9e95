import { spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { TestHosts } from "../support/test-hosts.js";
import { TestHost } from "./harness.js";
import { onEachRuntime } from "./runtimes.js";

/*
 * Escapes through the network guard, tried from inside a real sandbox: request heads that name
 * one host to the name gate and another to the upstream, and DNS answers that would admit more
 * than the allowlist says. Every packet goes to the sandbox's host end or to test hosts in a
 * namespace made here. Each attempt has a control that shows the same bytes get through where
 * the protection does not apply (sni off, or a well-formed request), so none passes by accident.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "nft", "openssl");
const hosts = new TestHosts("fth244", "10.199.244", "fd99:1244");
const [, blocked, narrow, plain] = hosts.v4 as [string, string, string, string];
const [six] = hosts.v6 as [string];
/** The raw echo server's address (an extra address of the test namespace). */
const echo = "10.199.244.20";

const zone = {
  "api.test.example": { A: [echo] },
  "blocked.test.example": { A: [blocked] },
  // A name under an any-port wildcard aliased to a name allowed on 443 only.
  "alias.wide.test.example": { CNAME: "narrow.test.example" },
  "narrow.test.example": { A: [narrow] },
  "plain.wide.test.example": { A: [plain] },
  // Allowed names whose IPv6 answers lead to the metadata service through NAT64 and 6to4.
  "nat64.test.example": { AAAA: ["64:ff9b::a9fe:a9fe"] },
  "sixto4.test.example": { AAAA: ["2002:a9fe:a9fe::1"] },
  "six.test.example": { AAAA: [six] },
};

const template = `  esc:
    extends: basic
    network:
      mode: restricted
      allow: ["api.test.example", "*.wide.test.example", "narrow.test.example:443", "nat64.test.example", "sixto4.test.example", "six.test.example"]
      sni: true
`;

const get = (host: string, target = "/"): string => `GET ${target} HTTP/1.1\r\nHost: ${host}\r\n\r\n`;
/** The attempts on the name gate: each names api.test.example to a Host check, and another host to the upstream. */
const attempts: Record<string, string> = {
  "absolute-form": get("api.test.example", "http://blocked.test.example/"),
  "Host :": "GET / HTTP/1.1\r\nHost: api.test.example\r\nHost : blocked.test.example\r\n\r\n",
  folding: "GET / HTTP/1.1\r\nHost: api.test.example\r\nX-A: 1\r\n Host: blocked.test.example\r\n\r\n",
  pipelined: get("api.test.example") + get("blocked.test.example"),
};
/** Their well-formed twins, for the allowed host only. */
const controls: Record<string, string> = {
  "absolute-form": get("api.test.example", "http://api.test.example/"),
  "Host :": get("api.test.example"),
  folding: "GET / HTTP/1.1\r\nHost: api.test.example\r\nX-A: 1 2\r\n\r\n",
  pipelined: get("api.test.example") + get("api.test.example"),
};

interface Probe {
  reply?: string;
  error?: string;
  addresses?: string[];
}

describe.each(onEachRuntime(tools, { nspawn: "10.244", gvisor: "10.191" }))(
  "network escapes through the name gate and the DNS filter ($runtime runtime)",
  ({ runtime, prefix, runs }) => {
    if (!runs || !isRoot()) return void it.skip("needs root and the runtime's tools");
    const host = new TestHost(
      prefix,
      "nobody",
      template,
      `upstreamResolver: "${hosts.dns}", admitPrivate: ["10.199.244.0/24", "fd99:1244::/32"]`,
      { runtime },
    );
    const workspace = host.workspace("esc");
    const echoLog = join(hosts.dir, "echo.log");
    let echoServer: ChildProcess | undefined;

    beforeAll(async () => {
      await hosts.start(zone);
      await execa("ip", ["-n", hosts.namespace, "addr", "add", `${echo}/24`, "dev", "eth0"]);
      writeFileSync(echoLog, "");
      const server = spawn(
        "ip",
        [
          "netns",
          "exec",
          hosts.namespace,
          process.execPath,
          fileURLToPath(new URL("../support/raw-echo-server.mjs", import.meta.url)),
          echo,
          echoLog,
        ],
        {
          stdio: ["ignore", "pipe", "inherit"],
        },
      );
      echoServer = server;
      await new Promise<void>((resolve, reject) => {
        server.stdout?.once("data", () => resolve());
        server.once("exit", (code) => reject(new Error(`echo server exited with ${String(code)}`)));
      });
      for (const probe of ["raw-http-probe.mjs", "net-probe.mjs"])
        copyFileSync(fileURLToPath(new URL(`../support/${probe}`, import.meta.url)), join(workspace, probe));
      const up = await host.run(["up", "esc", "-t", "esc", "-w", workspace]);
      expect(up.exitCode, up.stderr).toBe(0);
    });
    afterAll(async () => {
      await host.cleanup();
      echoServer?.kill("SIGKILL");
      hosts.stop();
    });

    const send = async (bytes: string): Promise<Probe> =>
      JSON.parse(
        await host.sh(
          "esc",
          `node /workspace/raw-http-probe.mjs api.test.example 80 ${Buffer.from(bytes, "latin1").toString("base64")}`,
        ),
      ) as Probe;
    const probe = async (...args: string[]): Promise<Probe> =>
      JSON.parse(await host.sh("esc", `node /workspace/net-probe.mjs ${args.join(" ")}`)) as Probe;
    /** What reached the echo server, one string per connection it saw closed. */
    const received = async (): Promise<string[]> => {
      await new Promise((resolve) => setTimeout(resolve, 400));
      return readFileSync(echoLog, "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as string);
    };
    const sniRecords = async (): Promise<{ kind: string; name?: string; rule: string }[]> => {
      await new Promise((resolve) => setTimeout(resolve, 1500)); // the guard writes its records every second
      return JSON.parse((await host.run(["denials", "esc", "--json"])).stdout) as {
        kind: string;
        name?: string;
        rule: string;
      }[];
    };

    for (const [attempt, bytes] of Object.entries(attempts)) {
      it(`with sni, refuses a request that names another host by ${attempt}, and passes its well-formed twin`, async () => {
        const control = await send(controls[attempt] ?? "");
        expect(control.reply).toBe(controls[attempt]);
        const result = await send(bytes);
        expect(result.error).toBe("ECONNRESET");
        expect((await received()).join("")).not.toContain("blocked.test.example");
      });
    }

    it("records each refused request with its reason", async () => {
      const rules = (await sniRecords()).filter((record) => record.kind === "sni").map((record) => record.rule);
      expect(rules).toContain("request target names blocked.test.example, Host names api.test.example");
      expect(rules).toContain('malformed header line "Host :"');
      expect(rules).toContain("obsolete line folding");
      expect(rules).toContain("request 2 names blocked.test.example, the connection is for api.test.example");
    });

    it("without sni, the same bytes reach the upstream unchanged (the control for every attempt above)", async () => {
      expect((await host.run(["network", "esc", "--no-sni"])).exitCode).toBe(0);
      for (const bytes of Object.values(attempts)) expect((await send(bytes)).reply).toBe(bytes);
      expect((await received()).join("")).toContain("blocked.test.example");
    });

    it("admits an address reached through a CNAME only on the ports its allowlisted target has", async () => {
      // GIVEN *.wide.test.example (any port) and narrow.test.example:443; alias.wide… → narrow…
      expect((await probe("resolve", "alias.wide.test.example")).addresses).toEqual([narrow]);
      expect((await probe("tls", narrow, "443", "narrow.test.example")).reply).toBe(
        `hello ${narrow} 443 tls narrow.test.example`,
      );
      expect((await probe("tcp", narrow, "8080")).error).toBe("ECONNREFUSED");
      // Control: a name under the same wildcard with no such alias is reached on any port.
      expect((await probe("resolve", "plain.wide.test.example")).addresses).toEqual([plain]);
      expect((await probe("tcp", plain, "8080")).reply).toBe(`hello ${plain} 8080`);
    });

    it("leaves NAT64 and 6to4 addresses that lead to the metadata service out of answers", async () => {
      for (const name of ["nat64.test.example", "sixto4.test.example"])
        expect((await probe("resolve", name)).error).toMatch(/ENOTFOUND|ENODATA/);
      const rules = (await sniRecords()).filter((record) => record.kind === "dns").map((record) => record.rule);
      expect(rules).toContain("64:ff9b::a9fe:a9fe is NAT64 (64:ff9b::/96), for 169.254.169.254");
      expect(rules).toContain("2002:a9fe:a9fe::1 is 6to4 (2002::/16), for 169.254.169.254");
      // Control: an allowed name's IPv6 address outside those ranges (admitted here) is answered.
      expect((await probe("resolve", "six.test.example")).addresses).toEqual([six]);
    });
  },
);
