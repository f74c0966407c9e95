import { execFileSync } from "node:child_process";
import { chownSync, existsSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { agentUid, TestHost } from "./harness.js";
import { onEachRuntime } from "./runtimes.js";

const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "tmux", "pgrep");

/** Root's script that prints every process inside: `@@ PID`, `cmdline ARGS`, one `env NAME=VALUE` per variable. */
const everyProcess = `for p in /proc/[0-9]*; do
  echo "@@ \${p#/proc/}"
  echo "cmdline $(tr '\\0' ' ' < "$p/cmdline")"
  tr '\\0' '\\n' < "$p/environ" | sed 's/^/env /'
done
`;

function readProcesses(printed: string): { pid: string; cmdline: string; env: string[] }[] {
  return printed
    .split(/^@@ /m)
    .slice(1)
    .map((block) => {
      const [pid = "", ...lines] = block.split("\n");
      const cmdline = lines.find((line) => line.startsWith("cmdline "))?.slice("cmdline ".length) ?? "";
      return {
        pid,
        cmdline: cmdline.trim(),
        env: lines.filter((line) => line.startsWith("env ")).map((line) => line.slice("env ".length)),
      };
    });
}

describe.each(onEachRuntime(tools, { nspawn: "10.233", gvisor: "10.203" }))(
  "secrets in a real sandbox ($runtime runtime)",
  ({ runtime, prefix, runs }) => {
    if (!runs || !isRoot()) return void it.skip("needs root and the runtime's tools");
    const host = new TestHost(prefix, "nobody", "", "", { runtime });
    afterAll(() => host.cleanup());

    it("copies the template's secrets 0400 for the agent's uid in a 0700 directory, read-only at /run/secrets", async () => {
      expect((await host.run(["up", "sec", "-t", "keyed", "-w", host.workspace("sec")])).exitCode).toBe(0);
      expect((await host.run(["status", "sec"])).stdout).toMatch(new RegExp(`^runtime\\s+${runtime}$`, "m"));
      const dir = join(host.env.FORAGE_SECRETS_DIR ?? "", "sec");
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, "demo-key"))).toMatchObject({ uid: agentUid, gid: agentUid });
      expect(statSync(join(dir, "demo-key")).mode & 0o777).toBe(0o400);
      expect(await host.sh("sec", "stat -c '%a %u' /run/secrets/demo-key")).toBe(`400 ${agentUid}\n`);
      expect(await host.sh("sec", "touch /run/secrets/x 2>&1 || true")).toContain("Read-only file system");
    });

    it("exports the key for the agent process only: the agent sees it, a shell in the same sandbox does not", async () => {
      expect(await host.sh("sec", "keyed | grep '^DEMO_API_KEY='")).toBe(`DEMO_API_KEY=${host.secretValue}\n`);
      for (const shell of ["env", "bash -lc env"]) {
        const printed = await host.sh("sec", shell);
        // Control: the environment was printed, so its lack of the key means something.
        expect(printed, shell).toMatch(/^FORAGE_SANDBOX=sec$/m);
        expect(printed, shell).not.toContain(host.secretValue);
      }
    });

    it("keeps the key out of every process's command line, and out of every environment but the running agent's", async () => {
      // GIVEN the agent running in a tmux window, as agents run; WHEN root inside reads them all.
      const start =
        "tmux new-window -d -n probe keyed sleep 300; for i in $(seq 100); do pgrep -fx 'sleep 300' >/dev/null && echo started && exit; sleep 0.1; done";
      expect(await host.sh("sec", start)).toBe("started\n");
      const processes = readProcesses(await host.rootSh("sec", everyProcess));
      expect(await host.sh("sec", "tmux kill-window -t probe && echo stopped")).toBe("stopped\n");
      // Control: the sandbox's own processes and the agent are among those read, each one's environment read.
      expect(processes.map((each) => each.cmdline)).toEqual(
        expect.arrayContaining([
          // The placeholder: nspawn's, or the sleep of gVisor's reaper (its PID 1).
          runtime === "nspawn" ? "/usr/bin/sleep infinity" : "/usr/bin/sleep 86400",
          "sleep 300",
          "bash -l",
          expect.stringMatching(/^tmux new-session -d -s forage /),
        ]),
      );
      for (const each of processes) {
        expect(each.env.length, `${each.pid} ${each.cmdline}: environment read`).toBeGreaterThan(0);
        expect(each.cmdline, each.pid).not.toContain(host.secretValue);
      }
      const holders = processes.filter((each) => each.env.some((entry) => entry.includes(host.secretValue)));
      expect(
        holders.map((each) => [each.cmdline, each.env.filter((entry) => entry.includes(host.secretValue))]),
      ).toEqual([["sleep 300", [`DEMO_API_KEY=${host.secretValue}`]]]);
    });

    it("keeps the key out of the sandbox's metadata and audit log", async () => {
      const status = await host.run(["status", "sec", "--json"]);
      expect(status.exitCode, status.stderr).toBe(0);
      expect(JSON.parse(status.stdout)).toMatchObject({ name: "sec", template: "keyed", status: "running" });
      expect(status.stdout).not.toContain(host.secretValue);
      const stored = readFileSync(join(host.stateDir, "sandboxes", "sec.json"), "utf8");
      expect(JSON.parse(stored)).toMatchObject({ name: "sec" });
      expect(stored).not.toContain(host.secretValue);
      const audit = await host.run(["audit-log", "sec", "--json"]);
      expect(audit.exitCode, audit.stderr).toBe(0);
      const events = audit.stdout.trim().split("\n");
      expect(events.map((line) => JSON.parse(line) as unknown)).toContainEqual(
        expect.objectContaining({ sandbox: "sec", event: "create" }),
      );
      expect(audit.stdout).not.toContain(host.secretValue);
    });

    it("does not show one sandbox's secrets to another", async () => {
      expect((await host.run(["up", "nosec", "-t", "basic", "-w", host.workspace("nosec")])).exitCode).toBe(0);
      const scan = `grep -rlsF ${host.secretValue} /run /tmp /home /etc /workspace; echo scanned`;
      // Control: the same scan finds the key where it is.
      expect(await host.sh("sec", scan)).toBe("/run/secrets/demo-key\nscanned\n");
      expect(await host.sh("nosec", `ls /run/secrets 2>&1; ${scan}`)).toBe(
        "ls: cannot access '/run/secrets': No such file or directory\nscanned\n",
      );
      expect((await host.run(["down", "nosec"])).exitCode).toBe(0);
    });

    it("gives the agent its SSH identity key (--ssh-key-path) read-only, used by ssh and git, and again after reset", async () => {
      const key = join(host.dir, "identity_ed25519");
      execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "agent-identity", "-f", key]);
      chownSync(key, agentUid, agentUid);
      expect(
        (await host.run(["up", "idk", "-t", "basic", "-w", host.workspace("idk"), "--ssh-key-path", key])).exitCode,
      ).toBe(0);
      const publicKey = readFileSync(`${key}.pub`, "utf8").trim();
      const check =
        "stat -c '%a %u' /run/secrets/.ssh-identity; ssh -G example.invalid | grep -E '^(identityfile|identitiesonly) '; ssh-keygen -y -f /run/secrets/.ssh-identity";
      const expected = `400 ${agentUid}\nidentitiesonly yes\nidentityfile /run/secrets/.ssh-identity\n${publicKey}\n`;
      expect(await host.sh("idk", check)).toBe(expected);
      expect((await host.run(["reset", "idk"])).exitCode).toBe(0);
      expect(await host.sh("idk", check)).toBe(expected);
      const status = await host.run(["status", "idk", "--json"]);
      expect(status.exitCode, status.stderr).toBe(0);
      expect(JSON.parse(status.stdout)).toMatchObject({ name: "idk", status: "running" });
      // Every line of the private key's body (the lines between its BEGIN and END lines).
      const body = readFileSync(key, "utf8").trim().split("\n").slice(1, -1);
      expect(body.length).toBeGreaterThan(0);
      for (const line of body) expect(status.stdout).not.toContain(line);
      expect((await host.run(["down", "idk"])).exitCode).toBe(0);
    });

    it("refuses an identity key that is not the user's own file: root's, or a symbolic link", async () => {
      const rootsKey = join(host.dir, "root_ed25519");
      execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", rootsKey]);
      const refused = await host.run([
        "up",
        "idk2",
        "-t",
        "basic",
        "-w",
        host.workspace("idk2"),
        "--ssh-key-path",
        rootsKey,
      ]);
      expect(refused).toMatchObject({
        exitCode: 64,
        stderr: expect.stringContaining("is not owned by the sandbox's user") as unknown,
      });
      const link = join(host.dir, "link_ed25519");
      symlinkSync(rootsKey, link);
      const linked = await host.run([
        "up",
        "idk2",
        "-t",
        "basic",
        "-w",
        host.workspace("idk2"),
        "--ssh-key-path",
        link,
      ]);
      expect(linked).toMatchObject({ exitCode: 64, stderr: expect.stringContaining("is a symbolic link") as unknown });
      expect((await host.run(["status", "idk2"])).exitCode).toBe(2);
    });

    it("removes the secret copies on down", async () => {
      expect((await host.run(["down", "sec"])).exitCode).toBe(0);
      expect(existsSync(join(host.env.FORAGE_SECRETS_DIR ?? "", "sec"))).toBe(false);
    });
  },
);

describe.skipIf(!tools.run || !isRoot())("concurrent creation", () => {
  const host = new TestHost("10.234");
  afterAll(() => host.cleanup());

  it("gives 10 concurrent ups 10 different slots and consistent state", async () => {
    const names = Array.from({ length: 10 }, (_, i) => `c${i}`);
    const results = await Promise.all(
      names.map((name) => host.run(["up", name, "-t", "basic", "-w", host.workspace(name)])),
    );
    expect(
      results.map((r) => r.exitCode),
      results.map((r) => r.stderr).join("\n---\n"),
    ).toEqual(names.map(() => 0));
    const list = JSON.parse((await host.run(["ps", "--json"])).stdout) as {
      name: string;
      slot: number;
      status: string;
    }[];
    expect(list.map((s) => s.name).sort()).toEqual(names);
    expect(new Set(list.map((s) => s.slot)).size).toBe(10);
    expect(list.every((s) => s.status === "running")).toBe(true);
    const down = await host.run(["down", "--all", "--yes", "-t", "1"]);
    expect(down.exitCode).toBe(0);
    expect(JSON.parse((await host.run(["ps", "--json"])).stdout)).toEqual([]);
  }, 180_000);
});
