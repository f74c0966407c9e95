import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import type { SandboxView } from "../../runtime/api/sandbox-view.js";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { TestHost, type CliRun } from "./harness.js";
import { daemonForTests, runAsUser } from "./test-daemon.js";

/*
 * Issue 27, "a user's day": the user's commands ran with the settings the daemon read at its
 * start. An edited tasksMax was ignored while status showed the old one, a template added was
 * "not in forage.yaml", a proxied template came up with no API proxy and nothing said. Here the
 * configured user (nobody) edits the file the daemon serves and runs forage-ctl without sudo.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "nft");

const proxyPort = 18094;

/** A template whose agent is behind the API proxy (its upstream is never reached here). */
const proxied = `  viaproxy:
    network: none
    agents:
      keyed: { package: coreutils, executable: env, secretName: demo-key, authEnvVar: ANTHROPIC_API_KEY, auth: proxy, api: { upstream: "https://localhost:9" } }
`;

describe.skipIf(!tools.run || !isRoot())("the daemon follows its settings file", () => {
  const host = new TestHost("10.204", "nobody", "", "", {
    topLevel: `proxy: { port: ${proxyPort}, allowUpstreams: ["https://localhost:9"] }`,
  });
  const daemon = daemonForTests(host);
  const original = readFileSync(host.config, "utf8");
  const edit = (text: string): void => writeFileSync(host.config, text);
  const asUser = (...args: string[]): Promise<CliRun> => runAsUser(host, args);
  const statusOf = async (name: string): Promise<SandboxView> => {
    const status = await asUser("status", name, "--json");
    expect(status.exitCode, status.stderr).toBe(0);
    return JSON.parse(status.stdout) as SandboxView;
  };

  it("starts the user's sandbox with an edited tasksMax; status shows the cgroup's limit before and after", async () => {
    const up = await asUser("up", "lim", "-t", "limited", "-w", host.workspace("lim"));
    expect(up.exitCode, up.stderr).toBe(0);
    edit(original.replace("tasksMax: 32", "tasksMax: 48"));
    // Running: what its cgroup holds, not what the file says now.
    expect(await statusOf("lim")).toMatchObject({ resourceLimits: { tasksMax: 32 }, resourceLimitsFrom: "cgroup" });
    expect((await asUser("stop", "lim")).exitCode).toBe(0);
    expect(await statusOf("lim")).toMatchObject({ resourceLimits: { tasksMax: 48 }, resourceLimitsFrom: "template" });
    expect((await asUser("start", "lim")).exitCode).toBe(0);
    expect(await statusOf("lim")).toMatchObject({
      resourceLimits: { tasksMax: 48, memoryMax: "96M", cpuQuota: "50%" },
      resourceLimitsFrom: "cgroup",
    });
    expect((await asUser("status", "lim")).stdout).toMatch(
      /limits +memory 96M, tasks 48, cpu 50% \(in force: its cgroup\)/,
    );
  });

  it("status shows the network mode the sandbox's host-side table enforces, and says when that table is gone", async () => {
    const running = await statusOf("lim");
    expect(running.network).toEqual({ mode: "none", from: "table" });
    expect((await asUser("status", "lim")).stdout).toMatch(/network +none \(in force: its nftables table\)/);
    // Flushed by hand (a firewall reload does this): the metadata still says none, the kernel enforces nothing of it.
    const table = `forage_f${running.slot}`;
    expect((await execa("nft", ["delete", "table", "inet", table], { reject: false })).exitCode).toBe(0);
    expect((await statusOf("lim")).network).toEqual({ mode: null, from: "table" });
    expect((await asUser("status", "lim")).stdout).toMatch(
      /network +NOT IN FORCE: its host-side nftables table is missing/,
    );
    expect((await asUser("stop", "lim")).exitCode).toBe(0);
    expect((await statusOf("lim")).network).toEqual({ mode: "none", from: "metadata" });
    expect((await asUser("start", "lim")).exitCode).toBe(0);
    expect((await statusOf("lim")).network).toEqual({ mode: "none", from: "table" });
  });

  it("knows a template added to the file at the user's next command", async () => {
    edit(`${readFileSync(host.config, "utf8")}  added:\n    extends: basic\n`);
    const up = await asUser("up", "add", "-t", "added", "-w", host.workspace("add"));
    expect(up.exitCode, up.stderr).toBe(0);
    expect((await statusOf("add")).template).toBe("added");
  });

  it("keeps the last good settings through an edit with errors, and every command says where until it is fixed", async () => {
    const good = readFileSync(host.config, "utf8");
    edit(`${good}  broken:\n    extends: basic\n    network: sideways\n`);
    const line = good.split("\n").length + 2;
    for (const args of [["ps"], ["status", "add"]]) {
      const run = await asUser(...args);
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stderr).toContain(
        "changed, but its settings are not taken (the last good ones stay in force until it is fixed)",
      );
      expect(run.stderr).toMatch(new RegExp(`forage\\.yaml:${line}:\\d+: templates\\.broken\\.network`));
    }
    // The last good settings: the broken template is not among them, the added one is.
    expect((await asUser("up", "brk", "-t", "broken", "-w", host.workspace("brk"))).exitCode).toBe(3);
    edit(good);
    const fixed = await asUser("ps");
    expect(fixed.exitCode).toBe(0);
    expect(fixed.stderr).not.toContain("not taken");
  });

  it("gives a proxied template added to the file its API proxy when the user starts a sandbox of it", async () => {
    edit(`${readFileSync(host.config, "utf8")}${proxied}`);
    const up = await asUser("up", "prx", "-t", "viaproxy", "-w", host.workspace("prx"));
    expect(up.exitCode, up.stderr).toBe(0);
    expect(up.stderr).not.toContain("no API proxy serves it");
    const { apiProxy, address } = await statusOf("prx");
    expect(apiProxy).toEqual({ served: true, address: `${address.replace(/\.2$/, ".1")}:${proxyPort}` });
    const listed = JSON.parse((await host.run(["proxy", "--status", "--json"])).stdout) as {
      sandboxes: { name: string }[];
    };
    expect(listed.sandboxes.map((sandbox) => sandbox.name)).toEqual(["prx"]);
  });

  it("gives a proxied template's sandbox its API proxy when root starts it too", async () => {
    // The daemon started with no agent behind a proxy, so it ran none (before issue 27, none ever).
    await host.run(["down", "prx", "-t", "1"]);
    edit(original);
    await daemon.restart();
    edit(`${original}${proxied}`);
    const up = await host.run(["up", "rprx", "-t", "viaproxy", "-w", host.workspace("rprx")]);
    expect(up.exitCode, up.stderr).toBe(0);
    expect(up.stderr).not.toContain("no API proxy serves it");
    const listed = JSON.parse((await host.run(["proxy", "--status", "--json"])).stdout || "null") as {
      sandboxes: { name: string }[];
    } | null;
    expect(listed?.sandboxes.map((sandbox) => sandbox.name)).toEqual(["rprx"]);
    expect((await statusOf("rprx")).apiProxy).toMatchObject({ served: true });
  });
});

/*
 * A TypeScript config is a program, and the user may have written it: read again for the user's
 * command, it runs as the configured user, never as root. Its tasksMax says who ran it.
 */
describe.skipIf(!tools.run || !isRoot())("the daemon reads an edited TypeScript config", () => {
  const host = new TestHost("10.205");
  const config = join(host.dir, "forage.config.ts");
  writeFileSync(
    config,
    `const root = process.getuid?.() === 0;
export default {
  user: "nobody",
  network: { base: "10.205" },
  templates: { basic: { agents: { helper: { package: "bashInteractive", executable: "bash" } }, resourceLimits: { tasksMax: root ? 100 : 200 } } },
};
`,
    { mode: 0o644 },
  );
  daemonForTests(host, () => config);

  it("runs it as the configured user for the user's command, not as root", async () => {
    appendFileSync(config, "// edited by the user\n");
    const up = await runAsUser(host, ["up", "tsc", "-t", "basic", "-w", host.workspace("tsc")]);
    expect(up.exitCode, up.stderr).toBe(0);
    const status = JSON.parse((await runAsUser(host, ["status", "tsc", "--json"])).stdout) as SandboxView;
    // 100 had root run it (the daemon's start did, as root's own command).
    expect(status.resourceLimits?.tasksMax).toBe(200);
  });
});
