import { copyFileSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { TestHosts } from "../support/test-hosts.js";
import { TestHost } from "./harness.js";

/*
 * Learn mode in a real sandbox: the names it resolves (through its DNS filter, whose upstream is
 * the authoritative server of a network namespace made here) are recorded, survive the guard's
 * restart, and --suggest --write --yes turns them into the template's allow list in the scratch config.
 * Every packet goes to loopback, the sandbox's host end, or the test hosts.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "nft");
const hosts = new TestHosts("fth252", "10.199.252", "fd99:1252");
const [api, cdn, files, blocked] = hosts.v4 as [string, string, string, string];

const zone = {
  "api.test.example": { A: [api] },
  "a.cdn.test.example": { A: [cdn] },
  "b.cdn.test.example": { A: [cdn] },
  "c.cdn.test.example": { A: [cdn] },
  "files.test.example": { A: [files] },
  "blocked.test.example": { A: [blocked] },
};

const template = `  learner:
    extends: basic
    network:
      mode: restricted
      allow: ["api.test.example"]
`;

interface View {
  policy: { mode: string; learn?: boolean };
  learned: { name: string; addresses: string[] }[];
  deniedNames: { name: string; rule: string }[];
  guard: { pid: number } | null;
}

describe.skipIf(!tools.run || !isRoot())("learn mode and the allow list it suggests", () => {
  const host = new TestHost(
    "10.252",
    "nobody",
    template,
    `upstreamResolver: "${hosts.dns}", admitPrivate: ["10.199.252.0/24", "fd99:1252::/32"]`,
  );
  const workspace = host.workspace("learn");

  beforeAll(async () => {
    await hosts.start(zone);
    copyFileSync(fileURLToPath(new URL("../support/net-probe.mjs", import.meta.url)), join(workspace, "probe.mjs"));
    const up = await host.run(["up", "ln", "-t", "learner", "-w", workspace]);
    expect(up.exitCode, up.stderr).toBe(0);
  });
  afterAll(async () => {
    await host.cleanup();
    hosts.stop();
  });

  const probe = async (...args: string[]): Promise<{ addresses?: string[]; reply?: string; error?: string }> =>
    JSON.parse(await host.sh("ln", `node /workspace/probe.mjs ${args.join(" ")}`)) as {
      addresses?: string[];
      reply?: string;
      error?: string;
    };
  const network = async (...args: string[]): Promise<View> => {
    const result = await host.run(["network", "ln", ...args, "--json"]);
    expect(result.exitCode, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as View;
  };

  it("records every name resolved in learn mode with its addresses, reaching them as in full mode", async () => {
    expect((await probe("resolve", "blocked.test.example")).error).toBe("ENOTFOUND");
    const learning = await network("learn");
    expect(learning.policy).toMatchObject({ mode: "full", learn: true });
    for (const name of ["a.cdn.test.example", "b.cdn.test.example", "c.cdn.test.example", "api.test.example"])
      expect((await probe("resolve", name)).addresses).toEqual([expect.any(String)]);
    expect((await probe("tcp", "files.test.example", "80")).reply).toBe(`hello ${files} 80`);
    const view = await network();
    expect(view.learned.map((each) => each.name).sort()).toEqual([
      "a.cdn.test.example",
      "api.test.example",
      "b.cdn.test.example",
      "c.cdn.test.example",
      "files.test.example",
    ]);
    expect(view.learned.find((each) => each.name === "files.test.example")?.addresses).toEqual([files]);
    // Refused before learning began, and shown beside the learned names.
    expect(view.deniedNames).toContainEqual(
      expect.objectContaining({ name: "blocked.test.example", rule: "not in allow" }),
    );
    const text = await host.run(["network", "ln"]);
    expect(text.stdout).toContain("full, learning");
    expect(text.stdout).toMatch(/learned {3}5 names/);
    expect(text.stdout).toContain("denied    blocked.test.example (not in allow");
  });

  it("keeps what it learned when its guard is restarted, and goes on learning", async () => {
    const before = await network();
    process.kill(before.guard?.pid ?? 0, "SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await host.run(["monitor", "--once", "--auto-restart"])).stdout).toContain("guard restarted");
    expect((await network()).learned).toHaveLength(5);
    expect((await probe("resolve", "blocked.test.example")).addresses).toEqual([blocked]);
    expect((await network()).learned.map((each) => each.name)).toContain("blocked.test.example");
  });

  it("suggests the smallest allow list covering what was used, leaving out what the template allows", async () => {
    const result = await host.run(["network", "ln", "--suggest", "--json"]);
    expect(result.exitCode, result.stderr).toBe(0);
    const suggestion = JSON.parse(result.stdout) as {
      add: { entry: string }[];
      covered: { name: string; by: string }[];
    };
    expect(suggestion.add.map((each) => each.entry)).toEqual([
      "blocked.test.example",
      "*.cdn.test.example",
      "files.test.example",
    ]);
    expect(suggestion.covered).toEqual([{ name: "api.test.example", by: "api.test.example" }]);
  });

  it("writes it into the config's allow list, changing nothing else, and the config still validates", async () => {
    const original = readFileSync(host.config, "utf8");
    // With no terminal to ask on, --write refuses unless told yes.
    const unasked = await host.run(["network", "ln", "--suggest", "--write"]);
    expect([unasked.exitCode, unasked.stderr]).toEqual([64, expect.stringContaining("add --yes")]);
    expect(readFileSync(host.config, "utf8")).toBe(original);
    const written = await host.run(["network", "ln", "--suggest", "--write", "--yes"]);
    expect(written.exitCode, written.stderr).toBe(0);
    expect(written.stdout).toContain("added 3 entries");
    expect(readFileSync(host.config, "utf8")).toBe(
      original.replace(
        '      allow: ["api.test.example"]\n',
        '      allow: ["api.test.example", "blocked.test.example", "*.cdn.test.example", "files.test.example"]\n',
      ),
    );
    const validate = await host.run(["validate", host.config]);
    expect(validate.exitCode, validate.stderr).toBe(0);
  });

  it("leaves learn mode for another mode, keeping the learned list for later", async () => {
    const restricted = await network("restricted");
    expect(restricted.policy).toEqual({ mode: "restricted", allow: ["api.test.example"], deny: [], sni: false });
    expect(restricted.learned).toHaveLength(6);
    expect((await probe("resolve", "files.test.example")).error).toBe("ENOTFOUND");
  });
});
