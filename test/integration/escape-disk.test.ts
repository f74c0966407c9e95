import { execFileSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../cli/run-cli.js";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { agentUid, TestHost } from "./harness.js";
import { installStandInSystem } from "./host-user.js";

/*
 * Filling the host's disk through the workspace (issue 13, "Workspace disk"): workspace.maxSize
 * makes each workspace forage-ctl creates a btrfs subvolume with a qgroup limit. The filesystems
 * are small loop-mounted images in this test's own temp dir (256 MiB, sparse), never a real disk.
 * The subvolume attack runs on both runtimes that run here: host root, and a NixOS system (the
 * stand-in of test/nix/stand-in, template quota-nix), whose filter must judge the ioctl too.
 */
const tools = toolsAvailable(
  "systemd-nspawn",
  "nsenter",
  "setpriv",
  "ip",
  "flock",
  "git",
  "btrfs",
  "mkfs.btrfs",
  "findmnt",
  "dd",
  "gcc",
  "nix-build",
);
const gvisor = toolsAvailable("runsc");

const templates = `
  quota:
    extends: basic
    workspace: { maxSize: 32M }
  quota-nix:
    extends: quota
  quota-mounts:
    extends: quota
    workspace: { maxSize: 32M, mounts: { docs: { containerPath: /workspace/docs, repo: other } } }
`;

const MiB = 1024 ** 2;

describe.skipIf(!tools.run || !isRoot())("escape: filling the disk through the workspace", () => {
  const disks = mkdtempSync(join(tmpdir(), "forage-disk-"));
  const quotaFs = join(disks, "quota");
  const bareFs = join(disks, "bare");
  const host = new TestHost("10.249", "nobody", templates);
  const bare = new TestHost("10.249", "nobody", templates);
  const plain = new TestHost("10.249", "nobody", templates);
  const repo = join(disks, "repo");
  const probe = join(disks, "seccomp-probe");

  const asOwner = (program: string, args: string[]) =>
    execa("setpriv", ["--reuid", String(agentUid), "--regid", String(agentUid), "--clear-groups", program, ...args], {
      reject: false,
      cwd: "/",
      env: {
        HOME: disks,
        PATH: "/usr/bin:/bin",
        GIT_AUTHOR_NAME: "Owner",
        GIT_AUTHOR_EMAIL: "o@example.com",
        GIT_COMMITTER_NAME: "Owner",
        GIT_COMMITTER_EMAIL: "o@example.com",
      },
    });
  /** dd's verdict on writing `mib` MiB to `path` inside: "ok", or what it said. */
  const write = async (sandbox: string, path: string, mib: number): Promise<string> => {
    const result = await host.run([
      "exec",
      sandbox,
      "--",
      "sh",
      "-c",
      'dd if=/dev/zero of="$1" bs=1M count="$2" 2>&1 && sync && echo ok; rm -f "$1"',
      "sh",
      path,
      String(mib),
    ]);
    const out = result.stdout.trim();
    return out.endsWith("\nok") ? "ok" : out;
  };
  const workspaceQuota = (name: string) =>
    (
      JSON.parse(readFileSync(join(host.stateDir, "sandboxes", `${name}.json`), "utf8")) as {
        workspace: { hostPath: string; quota?: { subvolumeId: number } };
      }
    ).workspace;
  const subvolumes = async (): Promise<string> => (await execa("btrfs", ["subvolume", "list", quotaFs])).stdout;
  const qgroups = async (): Promise<string[]> =>
    (await execa("btrfs", ["qgroup", "show", quotaFs])).stdout
      .split("\n")
      .map((line) => line.trim().split(/\s+/)[0] ?? "")
      .filter((id) => id.startsWith("0/"));

  beforeAll(async () => {
    // The owner reaches the workspaces under each state directory (mkdtemp makes 0700 ones).
    for (const dir of [disks, plain.dir]) chmodSync(dir, 0o755);
    for (const fs of [quotaFs, bareFs]) {
      writeFileSync(`${fs}.img`, "");
      await execa("truncate", ["-s", "256M", `${fs}.img`]);
      await execa("mkfs.btrfs", ["-q", `${fs}.img`]);
      mkdirSync(fs);
      await execa("mount", ["-o", "loop", `${fs}.img`, fs]);
    }
    await execa("btrfs", ["quota", "enable", quotaFs]);
    host.stateDir = join(quotaFs, "state");
    bare.stateDir = join(bareFs, "state");
    mkdirSync(repo);
    writeFileSync(join(repo, "README.md"), "hello\n");
    await execa("chown", ["-R", `${agentUid}:${agentUid}`, repo]);
    for (const args of [
      ["init", "-q", "-b", "main"],
      ["add", "-A"],
      ["commit", "-q", "-m", "initial"],
    ])
      await asOwner("git", ["-C", repo, ...args]);
    installStandInSystem(disks, host.extraEnv, ["quota-nix"]);
    for (const [name, template, runtime] of [
      ["full", "quota", "nspawn"],
      ["free", "basic", "nspawn"],
      ["fulln", "quota-nix", "nspawn-nix"],
      ...(gvisor.run ? [["fullg", "quota", "gvisor"]] : []),
    ]) {
      const up = await host.run(["up", name ?? "", "-t", template ?? "", "--runtime", runtime ?? "", "-r", repo]);
      expect(up.exitCode, up.stderr).toBe(0);
    }
    // Static: it runs in the NixOS root too, which has none of the host's libraries.
    execFileSync("gcc", ["-static", "-O2", "-o", probe, join(repoRoot, "test/integration/seccomp-probe.c")]);
    const inWorkspace = join(workspaceQuota("fulln").hostPath, "probe");
    copyFileSync(probe, inWorkspace);
    chmodSync(inWorkspace, 0o755);
    chownSync(inWorkspace, agentUid, agentUid);
  });

  afterAll(async () => {
    for (const each of [host, bare, plain]) await each.cleanup().catch(() => undefined);
    for (const fs of [quotaFs, bareFs]) {
      if ((await execa("umount", [fs], { reject: false })).exitCode !== 0)
        await execa("umount", ["-l", fs], { reject: false });
    }
    rmSync(disks, { recursive: true, force: true });
  });

  it("refuses an agent's write past workspace.maxSize with EDQUOT (control: under the limit it succeeds)", async () => {
    expect(await write("full", "/workspace/fill", 16)).toBe("ok");
    expect(await write("full", "/workspace/fill", 48)).toContain("Disk quota exceeded");
    expect(await host.sh("full", "echo alive")).toBe("alive\n");
  });

  it("control: a sandbox of a template without maxSize, on the same filesystem, writes past 32M", async () => {
    expect(await write("free", "/workspace/fill", 48)).toBe("ok");
  });

  it("refuses the agent a new subvolume in the workspace, which would escape the limit (control: the owner on the host can, and writes past it there)", async () => {
    const inside = await host.run(["exec", "full", "--", "btrfs", "subvolume", "create", "/workspace/nested"]);
    expect(inside.exitCode).not.toBe(0);
    expect(inside.stderr).toContain("Operation not permitted");
    const nested = join(workspaceQuota("full").hostPath, "nested-on-host");
    expect((await asOwner("btrfs", ["subvolume", "create", nested])).exitCode).toBe(0);
    const escaped = await asOwner("dd", ["if=/dev/zero", `of=${nested}/fill`, "bs=1M", "count=48"]);
    expect(escaped.exitCode, escaped.stderr).toBe(0);
    expect((await asOwner("rm", ["-rf", nested])).exitCode).toBe(0);
  });

  it("refuses the subvolume ioctl on the NixOS runtime as well (control: the owner's same call on the host makes one)", async () => {
    const inside = await host.run(["exec", "fulln", "--", "/workspace/probe", "btrfs-subvol", "/workspace", "nested"]);
    expect(inside).toMatchObject({ exitCode: 1, stdout: "errno 1\n" });
    const workspace = workspaceQuota("fulln").hostPath;
    expect(existsSync(join(workspace, "nested"))).toBe(false);
    expect(await asOwner(probe, ["btrfs-subvol", workspace, "nested-on-host"])).toMatchObject({
      exitCode: 0,
      stdout: "ok",
    });
    expect(await subvolumes()).toContain("workspaces/fulln/_workspace/nested-on-host");
    expect((await asOwner("rm", ["-rf", join(workspace, "nested-on-host")])).exitCode).toBe(0);
  });

  it.runIf(gvisor.run)(
    "holds the gvisor runtime's agent to maxSize too, through gVisor's gofer, and makes it no subvolume",
    async () => {
      expect(await write("fullg", "/workspace/fill", 16)).toBe("ok");
      expect(await write("fullg", "/workspace/fill", 48)).toContain("Disk quota exceeded");
      expect(await host.sh("fullg", "echo alive")).toBe("alive\n");
      // gVisor passes no btrfs ioctl to the host's file: the call fails, and nothing is made.
      const inside = await host.run(["exec", "fullg", "--", "btrfs", "subvolume", "create", "/workspace/nested"]);
      expect(inside.exitCode).not.toBe(0);
      expect(existsSync(join(workspaceQuota("fullg").hostPath, "nested"))).toBe(false);
      expect(await subvolumes()).not.toContain("workspaces/fullg/_workspace/nested");
    },
  );

  it("shows the limit and the use in status, and in status --json", async () => {
    expect((await host.run(["status", "full"])).stdout).toMatch(
      /disk\s+[0-9.]+ MiB of 32\.0 MiB \(workspace\.maxSize\)/,
    );
    const view = JSON.parse((await host.run(["status", "full", "--json"])).stdout) as {
      workspaceDisk: { limitBytes: number; usedBytes: number | null } | null;
    };
    expect(view.workspaceDisk?.limitBytes).toBe(32 * MiB);
    expect(view.workspaceDisk?.usedBytes).toBeTypeOf("number");
    expect((JSON.parse((await host.run(["status", "free", "--json"])).stdout) as typeof view).workspaceDisk).toBeNull();
  });

  it("removes the workspace's subvolume and its qgroup at down, leaving nothing behind", async () => {
    const up = await host.run(["up", "gone", "-t", "quota", "-r", repo]);
    expect(up.exitCode, up.stderr).toBe(0);
    const { hostPath, quota } = workspaceQuota("gone");
    const id = String(quota?.subvolumeId);
    expect(await subvolumes()).toMatch(new RegExp(`^ID ${id} .*state/workspaces/gone/_workspace$`, "m"));
    expect(await qgroups()).toContain(`0/${id}`);
    const down = await host.run(["down", "gone", "-t", "1"]);
    expect(down.exitCode, down.stderr).toBe(0);
    expect(await subvolumes()).not.toMatch(new RegExp(`^ID ${id} `, "m"));
    expect(await qgroups()).not.toContain(`0/${id}`);
    expect(existsSync(hostPath)).toBe(false);
  });

  it("removes the subvolume of a workspace whose sandbox is gone at gc (the kernel then drops its qgroup)", async () => {
    const up = await host.run(["up", "lost", "-t", "quota", "-r", repo]);
    expect(up.exitCode, up.stderr).toBe(0);
    const { hostPath, quota } = workspaceQuota("lost");
    const id = String(quota?.subvolumeId);
    expect((await host.run(["stop", "lost", "-t", "1"])).exitCode).toBe(0);
    rmSync(join(host.stateDir, "sandboxes", "lost.json"));
    expect((await host.run(["gc"])).stdout).toContain("workspaces/lost");
    const gc = await host.run(["gc", "--force"]);
    expect(gc.exitCode, gc.stderr).toBe(0);
    expect(existsSync(hostPath)).toBe(false);
    // Deleted subvolumes are dropped by the kernel's cleaner after a commit; wait for it.
    await execa("btrfs", ["filesystem", "sync", quotaFs]);
    await execa("btrfs", ["subvolume", "sync", quotaFs, id]);
    expect(await subvolumes()).not.toMatch(new RegExp(`^ID ${id} `, "m"));
    expect(await qgroups()).not.toContain(`0/${id}`);
  });

  it("removes the subvolumes a failed up made, and their qgroups", async () => {
    const before = await qgroups();
    const up = await host.run(["up", "half", "-t", "quota-mounts", "-r", repo]);
    expect(up.exitCode).toBe(64);
    expect(up.stderr).toContain('needs repository "other"');
    expect(await qgroups()).toEqual(before);
    expect(await subvolumes()).not.toContain("workspaces/half");
  });

  it("refuses maxSize on a writable directory mounted as is (-w), and says what to do", async () => {
    const dir = host.workspace("direct");
    const up = await host.run(["up", "direct", "-t", "quota", "-w", dir]);
    expect(up.exitCode).toBe(64);
    expect(up.stderr).toContain("workspace.maxSize limits only workspaces forage-ctl creates");
  });

  it("refuses maxSize when quotas are off, naming the command, and leaves them off", async () => {
    const up = await bare.run(["up", "noquota", "-t", "quota", "-r", repo]);
    expect(up.exitCode).toBe(6);
    expect(up.stderr).toContain(`btrfs quota enable ${bareFs}`);
    expect((await execa("btrfs", ["qgroup", "show", bareFs], { reject: false })).exitCode).not.toBe(0);
  });

  it("refuses maxSize on a state directory that is not btrfs (control: the same up without maxSize succeeds there)", async () => {
    const up = await plain.run(["up", "notbtrfs", "-t", "quota", "-r", repo]);
    expect(up.exitCode).toBe(6);
    expect(up.stderr).toMatch(
      /is on \w+, not btrfs.*put the state directory \(FORAGE_STATE_DIR\) on btrfs, or remove workspace\.maxSize/,
    );
    const control = await plain.run(["up", "notbtrfs", "-t", "basic", "-r", repo]);
    expect(control.exitCode, control.stderr).toBe(0);
  });
});
