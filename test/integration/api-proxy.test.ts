import { copyFileSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execa } from "execa";
import { cliPath } from "../cli/run-cli.js";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { TestUpstream } from "../support/test-upstream.js";
import { TestHost } from "./harness.js";
import { callApi, inSandbox as inSandboxOf, type Reply } from "./sandbox-calls.js";
import { waitForProxy } from "./proxy-ready.js";

/*
 * Agents' keys through the daemon's API proxy, from inside real sandboxes, to a real HTTPS
 * upstream on the host's loopback (a test CA the proxy is told to trust). Nothing leaves the host.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "nft", "tmux");
const keys = {
  "key-a": "sk-test-aaaa-1111",
  "key-b": "sk-test-bbbb-2222",
  "key-c": "sk-test-cccc-3333",
  "key-d": "sk-test-dddd-4444",
};
const proxyPort = 18083;

function templates(port: number): string {
  const node = "package: nodejs, executable: node";
  return `  apia:
    network: none
    agents:
      anth: { ${node}, secretName: key-a, authEnvVar: ANTHROPIC_API_KEY, auth: proxy, api: { upstream: "https://localhost:${port}" } }
    proxyFilter: { methods: [GET, POST], pathPrefixes: ["/v1/"] }
  apib:
    network: none
    agents:
      anth: { ${node}, secretName: key-b, authEnvVar: ANTHROPIC_API_KEY, auth: proxy, api: { upstream: "https://localhost:${port}" } }
  holder:
    network: none
    agents:
      ph: { ${node}, secretName: key-c, authEnvVar: OPENAI_API_KEY, auth: placeholder, api: { upstream: "https://localhost:${port}" } }
      other: { ${node}, secretName: key-d, authEnvVar: OTHER_KEY, auth: placeholder, api: { provider: custom, upstream: "https://127.0.0.1:${port}", header: x-other, baseUrlEnv: { OTHER_BASE_URL: "" } } }
`;
}

describe.skipIf(!tools.run || !isRoot())("the API proxy keeps keys on the host", () => {
  const upstream = new TestUpstream();
  let host: TestHost;
  const seen = (sandboxHeader: string) => upstream.received.map((request) => request.headers[sandboxHeader]);

  beforeAll(async () => {
    await upstream.start();
    host = new TestHost("10.223", "nobody", templates(upstream.port), "", {
      secrets: keys,
      topLevel: `proxy: { port: ${proxyPort}, caFile: "${upstream.caFile}", allowUpstreams: ["https://localhost:${upstream.port}", "https://127.0.0.1:${upstream.port}"] }`,
    });
    for (const [name, template] of [
      ["pa", "apia"],
      ["pb", "apib"],
      ["ph", "holder"],
    ]) {
      const workspace = host.workspace(name as string);
      copyFileSync(fileURLToPath(new URL("../support/api-client.mjs", import.meta.url)), join(workspace, "client.mjs"));
      const up = await host.run(["up", name as string, "-t", template as string, "-w", workspace]);
      expect(up.exitCode, up.stderr).toBe(0);
    }
    await waitForProxy(host, ["pa", "pb", "ph"]);
  }, 120_000);
  afterAll(async () => {
    await host?.cleanup();
    await upstream.stop();
  });

  const inSandbox = (sandbox: string, ...command: string[]): Promise<string> => inSandboxOf(host, sandbox, ...command);
  const call = (
    sandbox: string,
    agent: string,
    baseVariable: string,
    path: string,
    ...headers: string[]
  ): Promise<Reply> => callApi(host, sandbox, agent, baseVariable, path, ...headers);

  it("adds each sandbox's own key to its requests, and a forged identity header changes nothing", async () => {
    upstream.received.splice(0);
    expect(
      (await call("pa", "anth", "ANTHROPIC_BASE_URL", "/v1/messages", "x-api-key={env:ANTHROPIC_API_KEY}")).status,
    ).toBe(200);
    expect(
      (await call("pb", "anth", "ANTHROPIC_BASE_URL", "/v1/messages", "x-api-key={env:ANTHROPIC_API_KEY}")).status,
    ).toBe(200);
    // pa claims to be pb three ways: the reference's identity header, a forwarding header, a key of its own.
    const forged = await call(
      "pa",
      "anth",
      "ANTHROPIC_BASE_URL",
      "/v1/messages",
      "x-forage-sandbox=pb",
      "x-forwarded-for=10.223.2.2",
      "x-api-key=sk-test-bbbb-2222",
    );
    expect(forged.status).toBe(200);
    expect(seen("x-api-key")).toEqual([keys["key-a"], keys["key-b"], keys["key-a"]]);
    expect(
      upstream.received.every(
        (request) =>
          request.headers["x-forage-sandbox"] === undefined && request.headers["x-forwarded-for"] === undefined,
      ),
    ).toBe(true);
  });

  it("gives a placeholder agent a stand-in, swapped for the key only towards the secret's hosts", async () => {
    upstream.received.splice(0);
    const placeholder = (
      await inSandbox("ph", "/opt/forage/bin/ph", "-e", "console.log(process.env.OPENAI_API_KEY)")
    ).trim();
    expect(placeholder).toMatch(/^forage-placeholder-[0-9a-f]{64}$/);
    expect(
      (await call("ph", "ph", "OPENAI_BASE_URL", "/models", "authorization=Bearer {env:OPENAI_API_KEY}")).status,
    ).toBe(200);
    expect(upstream.received[0]?.path).toBe("/v1/models");
    expect(upstream.received[0]?.headers.authorization).toBe(`Bearer ${keys["key-c"]}`);
    // The same stand-in sent to 127.0.0.1, a host key-c is not bound to, never becomes the key.
    const elsewhere = await call(
      "ph",
      "other",
      "OTHER_BASE_URL",
      "/v1/x",
      `authorization=Bearer ${placeholder}`,
      "x-other={env:OTHER_KEY}",
    );
    expect(elsewhere.status).toBe(200);
    // A stand-in in a key header the provider does not read is dropped: the sandbox does not choose where keys go.
    expect(upstream.received[1]?.headers.authorization).toBeUndefined();
    expect(upstream.received[1]?.headers["x-other"]).toBe(keys["key-d"]);
    expect(JSON.stringify(upstream.received[1])).not.toContain(keys["key-c"]);
  });

  it("refuses a filtered path with 403 and the rule to change", async () => {
    const reply = await call("pa", "anth", "ANTHROPIC_BASE_URL", "/v2/admin");
    expect(reply.status).toBe(403);
    expect(reply.body).toContain("templates.apia.proxyFilter.pathPrefixes");
  });

  it("leaves no key anywhere in the sandbox: not in any process's environment or command line, nor in its files", async () => {
    const secrets = Object.values(keys);
    for (const sandbox of ["pa", "pb", "ph"]) {
      const metadata = JSON.parse(readFileSync(join(host.dir, "state/sandboxes", `${sandbox}.json`), "utf8")) as {
        cgroup: { procsFiles: string[] };
      };
      const pids = metadata.cgroup.procsFiles.flatMap((file) => readFileSync(file, "utf8").split("\n").filter(Boolean));
      const seenByProcess = pids.map((pid) => `${readProc(pid, "environ")}\n${readProc(pid, "cmdline")}`).join("\n");
      // Control: the scan reads the agents' environments, which hold the marker or stand-in.
      expect(seenByProcess).toMatch(
        sandbox === "ph" ? /OPENAI_API_KEY=forage-placeholder-/ : /ANTHROPIC_API_KEY=forage-proxy-adds-the-key/,
      );
      for (const secret of secrets) expect(seenByProcess, `${sandbox}: ${secret}`).not.toContain(secret);
      // Every file the agent can read outside the host's /usr (the root, /run/secrets, the workspace, /etc, /home, /tmp).
      // The values reach grep as arguments; "scanned" shows it ran to the end whatever it found.
      const scan =
        'grep -rlsF "$@" / --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev --exclude-dir=usr; echo scanned';
      const found = await host.run([
        "exec",
        sandbox,
        "--",
        "sh",
        "-c",
        scan,
        "sh",
        ...secrets.flatMap((secret) => ["-e", secret]),
      ]);
      expect(found.stdout.trim(), found.stderr).toBe("scanned");
      // Control: the same scan finds what the sandbox does hold in place of a key.
      const stand =
        sandbox === "ph" ? (await inSandbox(sandbox, "cat", "/run/secrets/key-c")).trim() : "forage-proxy-adds-the-key";
      const control = await host.run(["exec", sandbox, "--", "sh", "-c", scan, "sh", "-e", stand]);
      expect(control.stdout).toContain(sandbox === "ph" ? "/run/secrets/key-c" : "/run/secrets/key-");
    }
    expect(await inSandbox("pa", "cat", "/run/secrets/key-a")).toBe("forage-proxy-adds-the-key");
  });

  it("keeps keys out of the host's state, run and secrets directories, the audit log and the generated Nix", async () => {
    const out = join(host.dir, "generated");
    expect((await host.run(["generate", "-o", out])).exitCode).toBe(0);
    for (const dir of ["state", "run", "secrets", "generated"]) {
      for (const file of filesUnder(join(host.dir, dir))) {
        const text = readFileSync(file, "utf8");
        for (const secret of Object.values(keys)) expect(text.includes(secret), `${file} holds ${secret}`).toBe(false);
      }
    }
    const audit = readFileSync(join(host.dir, "state/proxy-audit.jsonl"), "utf8");
    expect(audit).toContain('"sandbox":"pa"');
    expect((statSync(join(host.dir, "state/proxy-audit.jsonl")).mode & 0o777).toString(8)).toBe("600");
  });

  it("takes a changed key at once, and reloads all on SIGHUP, without a restart", async () => {
    const file = join(host.dir, "key-a");
    writeFileSync(`${file}.new`, "sk-test-aaaa-rotated\n");
    renameSync(`${file}.new`, file);
    await sleep(300);
    upstream.received.splice(0);
    await call("pa", "anth", "ANTHROPIC_BASE_URL", "/v1/messages");
    expect(upstream.received[0]?.headers["x-api-key"]).toBe("sk-test-aaaa-rotated");
    const before = JSON.parse((await host.run(["proxy", "--status", "--json"])).stdout) as {
      pid: number;
      keys: { reloads: number };
    };
    process.kill(before.pid, "SIGHUP");
    await sleep(300);
    const after = JSON.parse((await host.run(["proxy", "--status", "--json"])).stdout) as {
      pid: number;
      keys: { reloads: number; loaded: string[] };
    };
    expect(after.pid).toBe(before.pid);
    expect(after.keys.reloads).toBe(before.keys.reloads + 1);
    expect(after.keys.loaded).toEqual(["key-a", "key-b", "key-c", "key-d"]);
  });

  it("is reachable only from its sandbox: another sandbox, or the host, gets nothing", async () => {
    const probe =
      'const s = require("net").connect(Number(process.argv[1]), process.argv[2]); s.on("connect", () => { console.log("open"); process.exit(); }); s.on("error", (e) => { console.log(e.code); process.exit(); }); setTimeout(() => { console.log("timeout"); process.exit(); }, 1500);';
    // pa's side of its link (slots are host-wide: another test's sandbox may hold slot 1).
    const address = `10.223.${await host.slotOf("pa")}.1`;
    const fromOther = await inSandbox("pb", "node", "-e", probe, String(proxyPort), address);
    expect(fromOther.trim()).not.toBe("open");
    const socket = connect(proxyPort, address);
    const fromHost = await new Promise<string>((resolve) => {
      socket.on("connect", () => resolve("open"));
      socket.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
      setTimeout(() => resolve("timeout"), 1500);
    });
    socket.destroy();
    expect(fromHost).not.toBe("open");
    const status = await host.run(["proxy", "--status"]);
    expect(status.stdout).toMatch(new RegExp(`pa\\s+${address.replace(/\./g, "\\.")}:18083\\s+anth`));
  });

  it("runs in the foreground with forage-ctl proxy where no daemon runs it, and refuses a second one", async () => {
    const second = await host.run(["proxy"]);
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toMatch(/an API proxy already runs \(pid \d+\)/);
    expect((await host.run(["daemon", "--stop"])).exitCode).toBe(0);
    for (
      let attempt = 0;
      attempt < 50 && (await host.run(["proxy", "--status", "--json"])).stdout.trim() !== "null";
      attempt += 1
    )
      await sleep(100);
    const foreground = execa(process.execPath, [cliPath, "--config", host.config, "proxy"], {
      env: host.env,
      extendEnv: false,
      reject: false,
    });
    try {
      await waitForProxy(host, ["pa"]);
      upstream.received.splice(0);
      expect((await call("pa", "anth", "ANTHROPIC_BASE_URL", "/v1/messages")).status).toBe(200);
      expect(upstream.received[0]?.headers["x-api-key"]).toBe("sk-test-aaaa-rotated");
    } finally {
      foreground.kill("SIGTERM");
      const ended = await foreground;
      expect(ended.stderr).toContain("forage-proxy: stopped");
    }
  });
});

function readProc(pid: string, file: string): string {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "latin1").replaceAll("\0", "\n");
  } catch {
    return "";
  }
}

function filesUnder(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true, recursive: true });
  } catch {
    return [];
  }
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}
