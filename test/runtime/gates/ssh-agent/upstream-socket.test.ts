import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestSchemas } from "../../../../runtime/api/call-requests.js";
import { usableAgentSocket, withUpstreamAgent } from "../../../../runtime/gates/ssh-agent/upstream-socket.js";
import { isRoot, toolsAvailable } from "../../../support/tools.js";

/*
 * Keys an SSH agent names by fingerprint are relayed to the user's own agent: the caller's
 * SSH_AUTH_SOCK goes with up, start and reset, and is checked against a real ssh-agent before a
 * sandbox starts (as root here, the user of these checks).
 */
describe("the caller's SSH_AUTH_SOCK as forage-ctl passes it on", () => {
  it("passes an absolute socket path, and leaves out what no socket can be", () => {
    expect(usableAgentSocket("/tmp/ssh-XXXX/agent.123")).toBe("/tmp/ssh-XXXX/agent.123");
    expect(usableAgentSocket(undefined)).toBeUndefined();
    expect(usableAgentSocket("agent.sock")).toBeUndefined();
    expect(usableAgentSocket(`/${"a".repeat(107)}`)).toBeUndefined();
    expect(usableAgentSocket("/tmp/a\nb")).toBeUndefined();
  });

  it("is a field of up, start and reset that the daemon refuses when no socket could have it", () => {
    expect(requestSchemas.start.safeParse({ name: "demo", sshAuthSock: "/run/user/1000/ssh-agent" }).success).toBe(
      true,
    );
    expect(requestSchemas.reset.safeParse({ name: "demo", sshAuthSock: "relative" }).success).toBe(false);
    expect(
      requestSchemas.up.safeParse({ name: "demo", template: "t", sshAuthSock: `/${"a".repeat(107)}` }).success,
    ).toBe(false);
  });
});

const tools = toolsAvailable("ssh-agent", "ssh-add", "ssh-keygen");

describe.skipIf(!tools.run || !isRoot())(
  "a sandbox's SSH agent relaying to the user's own agent, checked before it starts",
  () => {
    const dir = mkdtempSync(join(tmpdir(), "forage-upstream-"));
    const socket = join(dir, "agent.sock");
    const root = { uid: 0, gid: 0 };
    const runAgent = () => execa("ssh-agent", ["-D", "-a", socket], { reject: false });
    let userAgent: ReturnType<typeof runAgent> | undefined;
    let held = "";

    const fingerprintOf = (key: string): string =>
      execFileSync("ssh-keygen", ["-l", "-E", "sha256", "-f", `${key}.pub`], { encoding: "utf8" }).split(" ")[1] ?? "";

    beforeAll(async () => {
      for (const name of ["held", "missing"])
        execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", `${name}@test`, "-f", join(dir, name)]);
      held = fingerprintOf(join(dir, "held"));
      userAgent = runAgent();
      for (let i = 0; i < 100; i++) {
        if ((await execa("ssh-add", ["-l"], { env: { SSH_AUTH_SOCK: socket }, reject: false })).exitCode === 1) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await execa("ssh-add", [join(dir, "held")], { env: { SSH_AUTH_SOCK: socket } });
    });

    afterAll(async () => {
      userAgent?.kill("SIGTERM");
      await userAgent;
      rmSync(dir, { recursive: true, force: true });
    });

    it("records the socket when the user's agent holds every key named by fingerprint", async () => {
      const agent = { keys: ["/home/u/.ssh/id_ed25519", held], confirm: true };
      expect(await withUpstreamAgent(agent, socket, root)).toEqual({ ...agent, upstreamSocket: socket });
      // start and reset without SSH_AUTH_SOCK check the one recorded at up.
      expect(await withUpstreamAgent({ ...agent, upstreamSocket: socket }, undefined, root)).toEqual({
        ...agent,
        upstreamSocket: socket,
      });
    });

    it("asks nothing and records nothing when no key is named by fingerprint", async () => {
      const agent = { keys: ["/home/u/.ssh/id_ed25519"], confirm: true };
      expect(await withUpstreamAgent(agent, socket, root)).toBe(agent);
      expect(await withUpstreamAgent(null, socket, root)).toBeNull();
    });

    it("refuses, saying what to do, without a socket, with a key the agent lacks, or with no agent there", async () => {
      const missing = fingerprintOf(join(dir, "missing"));
      await expect(withUpstreamAgent({ keys: [held], confirm: true }, undefined, root)).rejects.toThrow(
        /relayed to your own SSH agent, and SSH_AUTH_SOCK is not set here: run forage-ctl where your agent is/,
      );
      await expect(withUpstreamAgent({ keys: [held, missing], confirm: true }, socket, root)).rejects.toThrow(
        `your SSH agent at ${socket} (SSH_AUTH_SOCK): the user's agent holds no key ${missing}`,
      );
      await expect(withUpstreamAgent({ keys: [held], confirm: true }, join(dir, "gone.sock"), root)).rejects.toThrow(
        `your SSH agent at ${join(dir, "gone.sock")}`,
      );
    });
  },
);
