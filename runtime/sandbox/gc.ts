import { lstat, readdir, rm } from "node:fs/promises";
import { removeSandboxDir } from "../workspaces/remove-workspaces.js";
import { pathUnder, sandboxNamePattern } from "../names.js";
import { execa } from "execa";
import { removeHostPolicy } from "../network/host-policy.js";
import { removeLink, sandboxLink } from "../network/sandbox-link.js";
import { unmountRoot } from "../nspawn/root-mount.js";
import { rootPath } from "../paths.js";
import { isAlive } from "../state/lock.js";
import { listMetadata } from "../state/metadata-store.js";
import type { SandboxMetadata } from "../state/metadata.js";
import type { RuntimeContext } from "./context.js";
import { destroySandbox } from "./down.js";
import { removeSecrets } from "./secrets.js";
import { isRunning, stopSandbox } from "./start-stop.js";

/** One thing gc found that no live sandbox accounts for. */
export interface Orphan {
  kind: "half-created sandbox" | "stale runtime state" | "root" | "lock file" | "secrets" | "workspace" | "network namespace";
  name: string;
  detail: string;
}

/**
 * Finds what crashed or interrupted operations left behind. A stopped sandbox is not an orphan
 * (the reference treated it as one); a sandbox whose `up` died half-way is, and so are roots,
 * secret copies and network namespaces that belong to no sandbox.
 */
export async function findOrphans(context: RuntimeContext): Promise<Orphan[]> {
  const sandboxes = await listMetadata(context.paths);
  const known = new Set(sandboxes.map((s) => s.name));
  const orphans: Orphan[] = [];
  const running = new Set<string>();
  for (const sandbox of sandboxes) if (await isRunning(context, sandbox)) running.add(sandbox.name);
  for (const sandbox of sandboxes) {
    const isUp = running.has(sandbox.name);
    if (sandbox.phase === "creating" && !isAlive(sandbox.creatorPid) && !isUp) {
      orphans.push({ kind: "half-created sandbox", name: sandbox.name, detail: `its up (pid ${sandbox.creatorPid}) died before finishing` });
    } else if (!isUp && (sandbox.pid !== null || sandbox.cgroup !== null)) {
      orphans.push({ kind: "stale runtime state", name: sandbox.name, detail: "recorded as running but its container is gone" });
    }
  }
  for (const entry of await entries(context.paths.rootsDir)) {
    // systemd-nspawn locks a root with `.#<name>.lck` beside it and cannot remove it when killed.
    const lock = /^\.#(.+)\.lck$/.exec(entry)?.[1];
    if (lock !== undefined && !running.has(lock)) orphans.push({ kind: "lock file", name: lock, detail: `${context.paths.rootsDir}/${entry}` });
    else if (sandboxNamePattern.test(entry) && !known.has(entry)) orphans.push({ kind: "root", name: entry, detail: rootPath(context.paths, entry) });
  }
  for (const name of await entries(context.paths.secretsDir)) {
    if (sandboxNamePattern.test(name) && !known.has(name)) orphans.push({ kind: "secrets", name, detail: `${context.paths.secretsDir}/${name}` });
  }
  // A crash while an up was making its jj workspaces / git worktrees, before they were recorded.
  for (const name of await entries(context.paths.workspacesDir)) {
    if (sandboxNamePattern.test(name) && !known.has(name)) orphans.push({ kind: "workspace", name, detail: `${context.paths.workspacesDir}/${name} (git worktree prune / jj workspace forget tidy the repository)` });
  }
  orphans.push(...(await orphanNamespaces(context, sandboxes)));
  return orphans;
}

/** Removes what findOrphans reported. */
export async function removeOrphans(context: RuntimeContext, orphans: Orphan[]): Promise<void> {
  const sandboxes = new Map((await listMetadata(context.paths)).map((s) => [s.name, s]));
  for (const orphan of orphans) {
    const sandbox = sandboxes.get(orphan.name);
    if (orphan.kind === "half-created sandbox") await destroySandbox(context, orphan.name, 1);
    else if (orphan.kind === "stale runtime state" && sandbox !== undefined) await stopSandbox(context, sandbox, 1);
    else if (orphan.kind === "root") await unmountRoot(rootPath(context.paths, orphan.name));
    else if (orphan.kind === "lock file") await rm(orphan.detail, { force: true });
    else if (orphan.kind === "secrets") await removeSecrets(context.paths, orphan.name);
    else if (orphan.kind === "workspace") await removeOrphanWorkspaces(pathUnder(context.paths.workspacesDir, orphan.name));
    else if (orphan.kind === "network namespace") {
      const link = sandboxLink(Number(orphan.name.slice(1)), context.settings.host.network.base);
      await removeHostPolicy(link);
      await removeLink(link);
    }
  }
}

/** Removes a workspace directory no sandbox owns, as whoever owns it (it may hold their links). */
async function removeOrphanWorkspaces(dir: string): Promise<void> {
  const info = await lstat(dir).catch(() => undefined);
  if (info?.isDirectory() === true) await removeSandboxDir(dir, { uid: info.uid, gid: info.gid, home: "/" });
}

/**
 * Namespaces f<N> whose sandbox side carries this host's address for slot N but that no sandbox
 * holds. Namespaces with other addresses belong to someone else and are left alone.
 */
async function orphanNamespaces(context: RuntimeContext, sandboxes: SandboxMetadata[]): Promise<Orphan[]> {
  const held = new Set(sandboxes.map((s) => `f${s.slot}`));
  const listed = await execa("ip", ["netns", "list"], { reject: false });
  const names = listed.stdout.split("\n").map((line) => line.split(" ")[0] ?? "").filter((n) => /^f\d{1,3}$/.test(n) && !held.has(n));
  const orphans: Orphan[] = [];
  for (const name of names) {
    const expected = sandboxLink(Number(name.slice(1)), context.settings.host.network.base).sandboxAddress;
    const addresses = await execa("ip", ["-n", name, "-o", "addr", "show", "dev", "eth0"], { reject: false });
    if (addresses.stdout.includes(` ${expected}/`)) orphans.push({ kind: "network namespace", name, detail: `${expected} with no sandbox` });
  }
  return orphans;
}

async function entries(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => [] as string[]);
}
