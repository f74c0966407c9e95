import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApprovalView } from "../../runtime/gates/approvals/approval-view.js";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { TestHosts } from "../support/test-hosts.js";
import { TestHost } from "./harness.js";
import { onEachRuntime } from "./runtimes.js";
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
const [api, pkgs, once, denied, elsewhere, timed] = hosts.v4 as [string, string, string, string, string, string];

const zone = {
  "api.test.example": { A: [api] },
  "pkgs.test.example": { A: [pkgs] },
  // A TTL of 1 s: the test re-points it, and the DNS filter's cache keeps an answer for its TTL.
  "once.test.example": { A: [once], ttl: 1 },
  "denied.test.example": { A: [denied] },
  "timed.test.example": { A: [timed] },
};

const template = `  asking:
    extends: basic
    network:
      mode: restricted
      allow: ["api.test.example"]
      ask: true
`;

/** Waits out once.test.example's TTL: the DNS filter then asks upstream again. */
const ttlOut = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1100));

// The DNS filter holds the question on the host side, whichever stack the sandbox asks from.
describe.each(onEachRuntime(tools, { nspawn: "10.251", gvisor: "10.194" }))(
  "network ask mode on the $runtime runtime: a name not on the allowlist waits for the human",
  ({ runtime, prefix, runs }) => {
    if (!runs || !isRoot()) return void it.skip("needs root and the runtime's tools");
    const host = new TestHost(
      prefix,
      "nobody",
      template,
      `upstreamResolver: "${hosts.dns}", admitPrivate: ["10.199.251.0/24", "fd99:1251::/32"]`,
      { runtime },
    );
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
      host
        .sh("ak", `node /workspace/probe.mjs resolve ${name}`)
        .then((out) => JSON.parse(out) as { addresses?: string[]; error?: string });
    /** A connection from the sandbox (net-probe.mjs): what it read, or its error. */
    const probe = (args: string): Promise<{ reply?: string; error?: string }> =>
      host
        .sh("ak", `node /workspace/probe.mjs ${args}`)
        .then((out) => JSON.parse(out) as { reply?: string; error?: string });
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
      process.stdout.write(
        `ask mode: the held answer reached the sandbox ${Date.now() - approved} ms after forage-ctl approve was run (its process start included)\n`,
      );
      const view = JSON.parse((await host.run(["network", "ak", "--json"])).stdout) as { policy: { allow: string[] } };
      expect(view.policy.allow).toEqual(["api.test.example", "pkgs.test.example:443"]);
    });

    it("admits a name approved once for this run only, and --suggest offers to make it permanent", async () => {
      const answer = resolve("once.test.example");
      const request = await pending("once.test.example");
      expect((await host.run(["approve", request.id])).exitCode).toBe(0);
      expect((await answer).addresses).toEqual([once]);
      const view = JSON.parse((await host.run(["network", "ak", "--json"])).stdout) as {
        policy: { allow: string[] };
        guard: { admitted: string[] };
      };
      expect(view.policy.allow).not.toContain("once.test.example");
      expect(view.guard.admitted).toEqual(["once.test.example"]);
      const suggestion = JSON.parse((await host.run(["network", "ak", "--suggest", "--json"])).stdout) as {
        add: { entry: string; sources: string[] }[];
      };
      expect(suggestion.add).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ entry: "once.test.example:443", sources: ["once"] }),
          expect.objectContaining({ entry: "pkgs.test.example:443", sources: ["always"] }),
        ]),
      );
    });

    it("admits a name approved --once on the port the request named (443) at the address it was shown to resolve to, and on no other port", async () => {
      expect((await probe(`tls ${once} 443 once.test.example`)).reply).toBe(`hello ${once} 443 tls once.test.example`);
      expect(await probe(`tcp ${once} 8080`)).toMatchObject({ error: "ECONNREFUSED" });
      expect(await probe(`tcp ${once} 80`)).toMatchObject({ error: "ECONNREFUSED" });
      const admissions = (
        JSON.parse((await host.run(["network", "ak", "--json"])).stdout) as { guard: { admissions: unknown[] } }
      ).guard.admissions;
      expect(admissions).toContainEqual({
        name: "once.test.example",
        port: 443,
        addresses: [{ address: once, until: null }],
      });
    });

    it("asks again when the name is re-pointed at another address, showing it; denied, the new address is never admitted", async () => {
      hosts.setZone({ ...zone, "once.test.example": { A: [elsewhere], ttl: 1 } });
      try {
        await ttlOut();
        const answer = resolve("once.test.example");
        const request = await pending("once.test.example");
        expect(request.subject).toEqual({
          name: "once.test.example",
          port: 443,
          addresses: [elsewhere],
          approved: [once],
        });
        expect((await host.run(["deny", request.id])).exitCode).toBe(0);
        expect((await answer).error).toBe("ENOTFOUND");
        expect(await probe(`tls ${elsewhere} 443 once.test.example`)).toMatchObject({ error: expect.any(String) });
        expect((await resolve("once.test.example")).error).toBe("ENOTFOUND");
      } finally {
        hosts.setZone(zone);
      }
      await ttlOut();
      // What was approved still answers.
      expect((await resolve("once.test.example")).addresses).toEqual([once]);
    });

    it("admits a name approved --for a while until then: after it a connection is refused and the next lookup asks again", async () => {
      const answer = resolve("timed.test.example");
      const request = await pending("timed.test.example");
      expect((await host.run(["approve", request.id, "--for", "3s"])).exitCode).toBe(0);
      expect((await answer).addresses).toEqual([timed]);
      expect((await probe(`tls ${timed} 443 timed.test.example`)).reply).toBe(
        `hello ${timed} 443 tls timed.test.example`,
      );
      // The guard takes the approval back on its next round (every second) after its end.
      await new Promise((done) => setTimeout(done, 4500));
      expect(await probe(`tls ${timed} 443 timed.test.example`)).toMatchObject({ error: "ECONNREFUSED" });
      const again = resolve("timed.test.example");
      const asked = await pending("timed.test.example");
      expect(asked.subject).toEqual({ name: "timed.test.example", port: 443 });
      expect((await host.run(["deny", asked.id])).exitCode).toBe(0);
      expect((await again).error).toBe("ENOTFOUND");
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
      const denials = JSON.parse((await host.run(["network", "ak", "--json"])).stdout) as {
        deniedNames: { name: string; rule: string }[];
      };
      expect(denials.deniedNames).toContainEqual(
        expect.objectContaining({ name: "denied.test.example", rule: "denied when asked" }),
      );
    });

    it("with sni on, lets the name gate take an approved name on its port to the addresses approved for it only", async () => {
      expect((await host.run(["network", "ak", "--sni"])).exitCode).toBe(0);
      expect((await probe(`tls ${once} 443 once.test.example`)).reply).toBe(`hello ${once} 443 tls once.test.example`);
      // Re-pointed upstream: the gate, which resolves the name itself, connects to no address the human did not approve.
      hosts.setZone({ ...zone, "once.test.example": { A: [elsewhere] } });
      try {
        expect((await probe(`tls ${once} 443 once.test.example`)).error).toBe("ECONNRESET");
      } finally {
        hosts.setZone(zone);
      }
      // Port 80 was never approved. On nspawn the in-sandbox table refuses it before the gate; gVisor's
      // stack passes no table inside, so the gate takes the connection, reads the name and port, and resets it.
      expect((await probe(`http ${once} 80 once.test.example`)).error).toBe(
        runtime === "gvisor" ? "ECONNRESET" : "ECONNREFUSED",
      );
      expect((await host.run(["network", "ak", "--no-sni"])).exitCode).toBe(0);
    });

    it("turns ask off live: an unknown name is refused at once, without a question", async () => {
      expect((await host.run(["network", "ak", "--no-ask"])).exitCode).toBe(0);
      expect((await resolve("other.test.example")).error).toBe("ENOTFOUND");
      expect(JSON.parse((await host.run(["approvals", "--json"])).stdout)).toEqual([]);
    });
  },
);
