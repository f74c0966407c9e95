import { mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nixBuild, nixString, standInDir } from "../support/nix.js";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { agentUid, TestHost } from "./harness.js";

/*
 * The nspawn-nix runtime boots a template's prebuilt NixOS system from its init on an empty root.
 * A NixOS closure needs nixpkgs, which cannot be fetched here: the system is the stand-in in
 * test/nix/stand-in/nixos-system.nix (real nix-build, real store path, the host's programs with
 * their libraries), booted by the real systemd-nspawn.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "nix-build", "busybox");

describe.skipIf(!tools.run || !isRoot())("the nspawn-nix runtime (a prebuilt system booted from its init)", () => {
  const host = new TestHost("10.226");
  let system = "";

  beforeAll(() => {
    system = nixBuild(
      `import ${nixString(join(standInDir, "nixos-system.nix"))} { uid = ${agentUid}; gid = ${agentUid}; }`,
    );
    const systems = join(host.dir, "systems");
    mkdirSync(systems);
    symlinkSync(system, join(systems, "basic"));
    host.extraEnv.FORAGE_SYSTEMS_DIR = systems;
  }, 120_000);
  afterAll(() => host.cleanup());

  it("is offered for the templates that have a system", async () => {
    const info = JSON.parse((await host.run(["runtime", "--json"])).stdout) as {
      detected: string;
      runtimes: { name: string; available: boolean; description: string }[];
    };
    expect(info.detected).toBe("nspawn-nix");
    expect(info.runtimes.find((r) => r.name === "nspawn-nix")).toMatchObject({
      available: true,
      description: expect.stringContaining("here: basic") as unknown,
    });
  });

  it("is chosen for a template with a system, and runs the system's init as PID 1 on a root without the host's /usr", async () => {
    const up = await host.run(["up", "nixbox", "-t", "basic", "-w", host.workspace("nixbox")]);
    expect(up.stderr).toBe("");
    expect(up.exitCode).toBe(0);
    expect(JSON.parse((await host.run(["status", "nixbox", "--json"])).stdout)).toMatchObject({
      runtime: "nspawn-nix",
      status: "running",
    });
    // PID 1 is the init script (run by its interpreter); /usr holds only what the system put there.
    expect(
      await host.sh(
        "nixbox",
        "readlink /run/current-system; tr '\\0' ' ' < /proc/1/cmdline; echo; ls -A /usr /usr/bin",
      ),
    ).toBe(`${system}\n${system}/bin/busybox sh ${system}/init \n/usr:\nbin\n\n/usr/bin:\nenv\n`);
  });

  it("caps the system's /run below the template's memoryMax, as on a host root (nspawn's was 20% of the host's RAM)", async () => {
    // memoryMax is the default 4G: /run's share (1/16) is 256 MiB, ceilinged at 64 MiB.
    const run = (await host.sh("nixbox", "grep ' /run tmpfs ' /proc/self/mounts")).trim();
    expect(run.split(" ")[3]?.split(",")).toEqual(expect.arrayContaining(["nosuid", "nodev", "size=65536k"]));
  });

  it("has the system copy the home seed before it opens the session: the commit identity is the agent's own config", async () => {
    const up = await host.run([
      "up",
      "nixid",
      "-t",
      "basic",
      "-w",
      host.workspace("nixid"),
      "--git-user",
      'Nix "Agent"',
      "--git-email",
      "nix@example.org",
    ]);
    expect(up.exitCode, up.stderr).toBe(0);
    expect(await host.sh("nixid", "cat ~/.gitconfig")).toBe(
      '[user]\n\tname = "Nix \\"Agent\\""\n\temail = "nix@example.org"\n',
    );
    expect((await host.run(["down", "nixid"])).exitCode).toBe(0);
  });

  it("opens the agent's session under the sandbox's seccomp filter, as forage-session.service does (control: its init has only nspawn's)", async () => {
    const filters = async (pid: string): Promise<number> =>
      Number((await host.sh("nixbox", `grep '^Seccomp_filters:' /proc/${pid}/status`)).replace(/\D/g, ""));
    // The session's tmux server, found by its name; it did not come through forage-ctl's exec.
    const server = (await host.sh("nixbox", "ps -eo pid=,comm= | grep 'tmux: server'")).trim().split(/\s+/)[0] ?? "";
    expect(server).toMatch(/^\d+$/);
    // systemd-nspawn gives its payload, the init, filters of its own; the session has the sandbox's on top.
    expect(await filters(server)).toBe((await filters("1")) + 1);
  });

  it("runs commands as the agent with the system's own tools, no capabilities, in the workspace", async () => {
    const report = await host.sh("nixbox", "id -u; pwd; command -v setpriv; grep -E '^Cap(Eff|Bnd)' /proc/self/status");
    expect(report).toBe(
      `${agentUid}\n/workspace\n/run/current-system/sw/bin/setpriv\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\n`,
    );
    expect(await host.sh("nixbox", "touch /nix/store/forage-probe 2>&1 || true")).toContain("Read-only file system");
    expect(await host.sh("nixbox", "cat /tmp/init-marker")).toBe("ready\n");
  });

  it("runs its tools by their store paths: root inside repointing /run/current-system changes nothing", async () => {
    const evil = [
      "mkdir -p /tmp/evil/sw/bin",
      `ln -s ${system}/sw/bin/sh /tmp/evil/sw/bin/sh`,
      `for tool in setpriv env; do printf '#!${system}/bin/busybox sh\\ntouch /tmp/hijacked\\n' > /tmp/evil/sw/bin/$tool; chmod +x /tmp/evil/sw/bin/$tool; done`,
      "ln -sfn /tmp/evil /run/current-system",
    ].join("\n");
    expect((await host.run(["shell", "nixbox"], `${evil}\n`)).exitCode).toBe(0);
    // Shell builtins only: the agent's PATH now leads into /tmp/evil, which has nothing but sh.
    const check =
      'while read -r key value rest; do [ "$key" = "Uid:" ] && echo "$value"; done < /proc/self/status; test -e /tmp/hijacked && echo hijacked || echo clean';
    expect(await host.sh("nixbox", check)).toBe(`${agentUid}\nclean\n`);
  });

  it("keeps the workspace and wipes the root on reset", async () => {
    await host.sh("nixbox", "echo kept > /workspace/kept.txt; echo gone > /tmp/gone.txt");
    expect((await host.run(["reset", "nixbox"])).exitCode).toBe(0);
    expect(readFileSync(join(host.workspace("nixbox"), "kept.txt"), "utf8")).toBe("kept\n");
    expect(
      await host.sh("nixbox", "cat /workspace/kept.txt; test -e /tmp/gone.txt && echo still-there || echo wiped"),
    ).toBe("kept\nwiped\n");
  });

  it("asks the system's init to halt on stop (SIGRTMIN+3); down leaves nothing behind", async () => {
    expect((await host.run(["stop", "nixbox", "-t", "5"])).exitCode).toBe(0);
    expect(readFileSync(join(host.env.FORAGE_STATE_DIR ?? "", "sandboxes", "nixbox.log"), "utf8")).toContain(
      "stand-in init: halting",
    );
    expect((await host.run(["down", "nixbox"])).exitCode).toBe(0);
    expect((await host.run(["gc"])).stdout).toContain("nothing to clean");
  });

  it("refuses --runtime extra-container on a host that cannot run it, saying why", async () => {
    const refused = await host.run([
      "up",
      "extra",
      "-t",
      "basic",
      "--runtime",
      "extra-container",
      "-w",
      host.workspace("extra"),
    ]);
    expect(refused.exitCode).toBe(64);
    expect(refused.stderr).toMatch(
      /runtime extra-container cannot run template "basic": (extra-container is not installed|systemd is not this host's init)/,
    );
    expect((await host.run(["status", "extra"])).exitCode).toBe(2);
  });

  it("refuses --runtime nspawn-nix for a template without a system, saying how to get one", async () => {
    const refused = await host.run([
      "up",
      "nosys",
      "-t",
      "readonly",
      "--runtime",
      "nspawn-nix",
      "-w",
      host.workspace("nosys"),
    ]);
    expect(refused.exitCode).toBe(5);
    expect(refused.stderr).toContain('template "readonly" has no prebuilt NixOS system');
    expect(refused.stderr).toContain("--runtime nspawn");
  });
});
