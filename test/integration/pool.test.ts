import { existsSync, readdirSync, writeFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { TestHost } from "./harness.js";
import { daemonForTests, runAsUser } from "./test-daemon.js";

/*
 * Warm pools: the daemon keeps each template's `pool.size` sandboxes started ahead, holding
 * nothing of anyone's, and `up` claims one. Each pooled template has a twin that differs only in
 * keeping no pool, so a claimed sandbox and a cold one of the same template can be compared.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "ip", "tmux", "nft", "findmnt");

const pooled = `  pooled:
    extends: keyed
    initCommands: ["echo ready > /tmp/init-marker"]
    pool: { size: 1 }
  cold:
    extends: keyed
    initCommands: ["echo ready > /tmp/init-marker"]
  pooled-ro:
    extends: readonly
    pool: { size: 1 }
  cold-ro:
    extends: readonly
  pooled-ssh:
    extends: sshable
    pool: { size: 1 }
  cold-ssh:
    extends: sshable
`;

interface Listed {
  name: string;
  template: string;
  pool: boolean;
  status: string;
  slot: number;
  network: { mode: string | null };
}

/**
 * What a sandbox looks like from inside, its name and addresses written as NAME and BASE.N: the
 * agent's identity, environment, hostname files, every mount (target, type, ro/rw), what is at
 * the secrets path and under /run/forage, the init command's marker, the resolver, the session.
 */
const probe = [
  'echo "hostname $(hostname)"',
  "cat /etc/hostname /etc/hosts",
  "id",
  "env | sort | grep -v '^_='",
  "findmnt -rn -o TARGET,FSTYPE,OPTIONS | awk '{ split($3, o, \",\"); print $1, $2, o[1] }' | sort",
  "ls -ln --time-style=+ /run/secrets /run/forage 2>&1 | grep -v '^total'",
  "cat /tmp/init-marker 2>&1",
  "cat /etc/resolv.conf",
  "tmux has-session 2>&1 && echo session",
  "touch /workspace/probe 2>&1; rm -f /workspace/probe",
].join("; ");

describe.skipIf(!tools.run || !isRoot())("warm pools", () => {
  const host = new TestHost("10.195", "nobody", pooled);
  daemonForTests(host);
  const list = async (): Promise<Listed[]> => JSON.parse((await host.run(["ps", "--json"])).stdout) as Listed[];
  const members = async (template?: string): Promise<Listed[]> =>
    (await list()).filter((v) => v.pool && (template === undefined || v.template === template));
  const readyMembers = async (template: string): Promise<string[]> =>
    (await members(template)).filter((m) => m.status === "no-session").map((m) => m.name);
  const filled = async (template: string): Promise<string> => {
    await expect.poll(() => readyMembers(template), { timeout: 90_000, interval: 250 }).toHaveLength(1);
    return (await readyMembers(template))[0] ?? "";
  };
  const seen = async (name: string, slot: number): Promise<string> =>
    (await host.sh(name, probe)).replaceAll(name, "NAME").replaceAll(`10.195.${slot}.`, "10.195.N.");

  it("keeps each template's pool filled with members that hold nothing, shows them apart, and lets no command into one", async () => {
    const member = await filled("pooled");
    await filled("pooled-ro");
    await filled("pooled-ssh");
    expect((await members()).length).toBe(3);
    const view = (await list()).find((v) => v.name === member);
    // No network at all until claimed, and nothing of anyone's.
    expect(view?.network.mode).toBe("none");
    expect(existsSync(join(host.dir, "secrets", member))).toBe(false);
    const ps = await host.run(["ps"]);
    expect(ps.stdout).not.toMatch(new RegExp(`^${member} `, "m"));
    expect(ps.stdout).toContain(`warm pools (an up of the template claims one):\n`);
    expect(ps.stdout).toMatch(new RegExp(`^  pooled: ${member} \\(ready\\)$`, "m"));
    const exec = await host.run(["exec", member, "--", "true"]);
    expect(exec.exitCode).toBe(1);
    expect(exec.stderr).toContain(`is a member of template "pooled"'s warm pool`);
  }, 180_000);

  it.each([
    ["pooled", "cold"],
    ["pooled-ro", "cold-ro"],
    ["pooled-ssh", "cold-ssh"],
  ])(
    "gives a sandbox claimed from %s's pool everything a cold one of its twin %s gets, and refills the pool behind it",
    async (pool, twin) => {
      const member = await filled(pool);
      const warm = await host.run(["up", `w-${pool}`, "-t", pool, "-w", host.workspace(`w-${pool}`)]);
      expect(warm.exitCode, warm.stderr).toBe(0);
      const cold = await host.run(["up", `c-${pool}`, "-t", twin, "-w", host.workspace(`c-${pool}`)]);
      expect(cold.exitCode, cold.stderr).toBe(0);
      const events = (await host.run(["audit-log", `w-${pool}`])).stdout;
      expect(events).toContain(`from the pool (started as ${member})`);
      expect((await host.run(["audit-log", `c-${pool}`])).stdout).not.toContain("from the pool");
      const sandboxes = await list();
      const slotOf = (name: string): number => sandboxes.find((v) => v.name === name)?.slot ?? 0;
      const [warmSeen, coldSeen] = [
        await seen(`w-${pool}`, slotOf(`w-${pool}`)),
        await seen(`c-${pool}`, slotOf(`c-${pool}`)),
      ];
      expect(warmSeen).toBe(coldSeen);
      // The probe saw what it should: a control against two equally broken sandboxes.
      expect(warmSeen).toContain("hostname NAME\nNAME\n");
      expect(warmSeen).toMatch(/^\/workspace \S+ (rw|ro)$/m);
      expect(warmSeen).toContain("nameserver 10.195.N.1");
      expect(warmSeen).toContain("session");
      if (pool === "pooled") expect(warmSeen).toMatch(/demo-key/);
      if (pool === "pooled-ro") expect(warmSeen).toContain("Read-only file system");
      // What status says of each, but for what names it: the same.
      const statuses: Record<string, unknown>[] = [];
      for (const name of [`w-${pool}`, `c-${pool}`]) {
        const status = JSON.parse((await host.run(["status", name, "--json"])).stdout) as {
          status: string;
          network: { mode: string; from: string };
          sshHostKey: string | null;
        } & Record<string, unknown>;
        const {
          status: state,
          network,
          resourceLimits,
          seccomp,
          apiProxy,
          runtime,
          kernel,
          user,
          pool: member,
        } = status;
        statuses.push({ state, network, resourceLimits, seccomp, apiProxy, runtime, kernel, user, member });
        expect(state).toBe("running");
        expect(network.from).toBe("table");
        if (pool === "pooled-ssh") {
          // Its own host key, the one pinned for its name, not the member's.
          const pinned = status.sshHostKey?.split(" ").slice(0, 2).join(" ") ?? "none";
          expect(
            await host.rootSh(
              name,
              "cat /etc/ssh/ssh_host_ed25519_key.pub 2>/dev/null || ssh-keygen -y -f /etc/ssh/ssh_host_ed25519_key",
            ),
          ).toContain(pinned);
          expect(await host.rootSh(name, "pgrep -x sshd >/dev/null && echo sshd")).toBe("sshd\n");
        }
      }
      expect(statuses[0]).toEqual(statuses[1]);
      const refilled = await filled(pool);
      expect(refilled).not.toBe(member);
      for (const name of [`w-${pool}`, `c-${pool}`])
        expect((await host.run(["down", name, "-t", "1"])).exitCode).toBe(0);
      // The claimed one's root (made under the member's name) went with it.
      expect(readdirSync(join(host.dir, "run", "roots")).filter((entry) => entry.includes(member))).toEqual([]);
    },
    240_000,
  );

  it("leaves nothing when an up that claimed a member fails afterwards, and gc finds nothing", async () => {
    const member = await filled("pooled");
    // Not a repository: the workspace step fails after the member was taken.
    const failed = await host.run(["up", "bad", "-t", "pooled", "-r", host.workspace("not-a-repo")]);
    expect(failed.exitCode).not.toBe(0);
    expect((await list()).map((v) => v.name)).not.toContain("bad");
    expect((await list()).map((v) => v.name)).not.toContain(member);
    expect((await host.run(["gc"])).stdout).toBe("nothing to clean up\n");
    expect(await filled("pooled")).not.toBe(member);
  }, 180_000);

  it("replaces a member whose template changed since it started", async () => {
    const member = await filled("pooled");
    const config = readFileSync(host.config, "utf8");
    writeFileSync(
      host.config,
      config.replace(
        '    extends: keyed\n    initCommands: ["echo ready > /tmp/init-marker"]\n    pool',
        '    extends: keyed\n    initCommands: ["echo changed > /tmp/init-marker"]\n    pool',
      ),
    );
    // The daemon reads an edited file at its next request.
    await expect
      .poll(async () => (await runAsUserPs(host)).filter((v) => v.pool && v.template === "pooled").map((v) => v.name), {
        timeout: 90_000,
        interval: 500,
      })
      .not.toContain(member);
    const fresh = await filled("pooled");
    const up = await host.run(["up", "changed", "-t", "pooled", "-w", host.workspace("changed")]);
    expect(up.exitCode, up.stderr).toBe(0);
    expect((await host.run(["audit-log", "changed"])).stdout).toContain(`started as ${fresh}`);
    expect(await host.sh("changed", "cat /tmp/init-marker")).toBe("changed\n");
    expect((await host.run(["down", "changed", "-t", "1"])).exitCode).toBe(0);
  }, 240_000);

  it("runs a one-shot `run` in a member, which is then gone", async () => {
    const member = await filled("pooled");
    const ran = await host.run([
      "run",
      "-t",
      "pooled",
      "-w",
      host.workspace("run"),
      "--",
      "sh",
      "-c",
      "hostname; cat /run/secrets/demo-key",
    ]);
    expect(ran.exitCode, ran.stderr).toBe(0);
    expect(ran.stdout).toBe(`${/^run-[0-9a-f]{8}$/m.exec(ran.stdout)?.[0] ?? "run-?"}\n${host.secretValue}\n`);
    expect((await list()).map((v) => v.name)).not.toContain(member);
  }, 180_000);
});

/** ps through the daemon (as the configured user), which reads an edited settings file first. */
async function runAsUserPs(host: TestHost): Promise<Listed[]> {
  return JSON.parse((await runAsUser(host, ["ps", "--json"])).stdout) as Listed[];
}
