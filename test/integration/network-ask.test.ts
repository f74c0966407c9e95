import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApprovalView } from "../../runtime/approvals/approval-view.js";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { TestHosts } from "../support/test-hosts.js";
import { TestHost } from "./harness.js";
import { startTestDaemon } from "./test-daemon.js";

/*
 * Network ask mode end to end: a real sandbox in restricted mode with ask on resolves names its
 * allowlist does not have; its DNS filter (in the guard host) holds each and asks the daemon's
 * queue; forage-ctl approvals lists it, approve / deny answer it, and the held answer goes back
 * to the sandbox. The upstream is the authoritative server of a network namespace made here: the
 * test reads its log to show a held name was not forwarded before it was approved.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "nft");
const hosts = new TestHosts("fth251", "10.199.251", "fd99:1251");
const [api, pkgs, once, denied] = hosts.v4 as [string, string, string, string];

const zone = {
  "api.test.example": { A: [api] },
  "pkgs.test.example": { A: [pkgs] },
  "once.test.example": { A: [once] },
  "denied.test.example": { A: [denied] },
};

const template = `  asking:
    extends: basic
    network:
      mode: restricted
      allow: ["api.test.example"]
      ask: true
`;

describe.skipIf(!tools.run || !isRoot())("network ask mode: a name not on the allowlist waits for the human", () => {
  const host = new TestHost("10.251", "nobody", template, `upstreamResolver: "${hosts.dns}", admitPrivate: ["10.199.251.0/24", "fd99:1251::/32"]`);
  const workspace = host.workspace("ask");
  let daemon: Promise<unknown> | undefined;

  beforeAll(async () => {
    await hosts.start(zone);
    daemon = (await startTestDaemon(host)).exited;
    copyFileSync(fileURLToPath(new URL("../support/net-probe.mjs", import.meta.url)), join(workspace, "probe.mjs"));
    const up = await host.run(["up", "ak", "-t", "asking", "-w", workspace]);
    expect(up.exitCode, up.stderr).toBe(0);
  });
  afterAll(async () => {
    await host.cleanup();
    await daemon;
    hosts.stop();
  });

  /** Resolves in the sandbox (its resolver retries while the filter holds the question). */
  const resolve = (name: string): Promise<{ addresses?: string[]; error?: string }> =>
    host.sh("ak", `node /workspace/probe.mjs resolve ${name}`).then((out) => JSON.parse(out) as { addresses?: string[]; error?: string });
  const pending = async (name: string): Promise<ApprovalView> => {
    for (let i = 0; i < 200; i++) {
      const listed = JSON.parse((await host.run(["approvals", "--json"])).stdout) as ApprovalView[];
      const found = listed.find((each) => each.kind === "host" && (each.subject as { name: string }).name === name);
      if (found !== undefined) return found;
      await new Promise((done) => setTimeout(done, 50));
    }
    throw new Error(`no request for ${name} came`);
  };

  it("holds the name, nothing upstream, until `approve --always`; then answers it and adds it to the sandbox's allowlist", async () => {
    const answer = resolve("pkgs.test.example");
    const request = await pending("pkgs.test.example");
    expect(request).toMatchObject({ sandbox: "ak", kind: "host", subject: { name: "pkgs.test.example" } });
    expect(hosts.queries()).not.toContain("pkgs.test.example");
    const approved = Date.now();
    expect((await host.run(["approve", request.id, "--always"])).exitCode).toBe(0);
    expect((await answer).addresses).toEqual([pkgs]);
    process.stdout.write(`ask mode: the held answer reached the sandbox ${Date.now() - approved} ms after forage-ctl approve was run (its process start included)\n`);
    const view = JSON.parse((await host.run(["network", "ak", "--json"])).stdout) as { policy: { allow: string[] } };
    expect(view.policy.allow).toEqual(["api.test.example", "pkgs.test.example"]);
  });

  it("admits a name approved once for this run only, and --suggest offers to make it permanent", async () => {
    const answer = resolve("once.test.example");
    const request = await pending("once.test.example");
    expect((await host.run(["approve", request.id])).exitCode).toBe(0);
    expect((await answer).addresses).toEqual([once]);
    const view = JSON.parse((await host.run(["network", "ak", "--json"])).stdout) as { policy: { allow: string[] }; guard: { admitted: string[] } };
    expect(view.policy.allow).not.toContain("once.test.example");
    expect(view.guard.admitted).toEqual(["once.test.example"]);
    const suggestion = JSON.parse((await host.run(["network", "ak", "--suggest", "--json"])).stdout) as { add: { entry: string; sources: string[] }[] };
    expect(suggestion.add).toEqual(
      expect.arrayContaining([expect.objectContaining({ entry: "once.test.example", sources: ["once"] }), expect.objectContaining({ entry: "pkgs.test.example", sources: ["always"] })]),
    );
  });

  it("answers a denied name NXDOMAIN, records the denial, never forwards it, and does not ask again", async () => {
    const answer = resolve("denied.test.example");
    const request = await pending("denied.test.example");
    expect((await host.run(["deny", request.id])).exitCode).toBe(0);
    expect((await answer).error).toBe("ENOTFOUND");
    expect((await resolve("denied.test.example")).error).toBe("ENOTFOUND");
    expect(JSON.parse((await host.run(["approvals", "--json"])).stdout)).toEqual([]);
    expect(hosts.queries()).not.toContain("denied.test.example");
    // `denials` records what the guard refused up to now (its tally is otherwise written on its next round).
    expect((await host.run(["denials", "ak", "--json"])).exitCode).toBe(0);
    const denials = JSON.parse((await host.run(["network", "ak", "--json"])).stdout) as { deniedNames: { name: string; rule: string }[] };
    expect(denials.deniedNames).toContainEqual(expect.objectContaining({ name: "denied.test.example", rule: "denied when asked" }));
  });

  it("turns ask off live: an unknown name is refused at once, without a question", async () => {
    expect((await host.run(["network", "ak", "--no-ask"])).exitCode).toBe(0);
    expect((await resolve("other.test.example")).error).toBe("ENOTFOUND");
    expect(JSON.parse((await host.run(["approvals", "--json"])).stdout)).toEqual([]);
  });
});
