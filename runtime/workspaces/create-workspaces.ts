import { chmod, lchown, mkdir, realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import type { MountModel, TemplateModel } from "../../generator/model/model.js";
import { expandHome } from "../core/host-user.js";
import { pathUnder } from "../core/names.js";
import type { RuntimePaths } from "../core/paths.js";
import { SandboxError } from "../core/errors.js";
import type { NamedMount, WorkspaceMount } from "../state/metadata.js";
import { addGitWorktree, worktreeGitDirs } from "./git-worktree.js";
import { addJjWorkspace } from "./jj-workspace.js";
import { requirePinnedDirectory } from "../core/pinned-path.js";
import { gitStore, jjStores } from "./vcs-stores.js";
import { removeSandboxDir, removeWorkspace } from "./remove-workspaces.js";
import { createQuotaSubvolume, dropQuotaSubvolume, quotaPlan, type DiskQuota, type QuotaPlan } from "./disk-quota.js";
import type { RepoOwner } from "./vcs-command.js";
import { pathExists } from "../core/path-exists.js";

/** What `up` was asked to mount: -w DIR, or -r REPO [--direct], plus named repositories. */
export interface WorkspaceRequest {
  /** -w DIR: bound as is. */
  directory?: string;
  /** -r PATH: the default repository (a jj workspace or git worktree of it, or itself with --direct). */
  repo?: string;
  /** --direct: bind the default repository as is. */
  direct?: boolean;
  /** -r NAME=PATH: repositories the template's mounts name. */
  namedRepos?: Record<string, string>;
  /** An empty directory of the sandbox's own, removed with it (an MCP server's sandbox given no workspace). */
  empty?: boolean;
}

/** workspace.maxSize at `up`: where limited workspaces go (null: no limit), and those made so far. */
interface QuotaState {
  plan: QuotaPlan | null;
  /** Every workspace is read-only (readOnlyWorkspace): a direct mount cannot fill a disk. */
  readOnly: boolean;
  made: DiskQuota[];
}

/** Where the primary workspace is made: a name no template mount can have. */
const primaryDir = "_workspace";

/**
 * Makes every workspace a new sandbox mounts: the primary one (at the workspace path) and the
 * template's mounts. jj workspaces and git worktrees are made as the repository's owner under
 * `<state>/workspaces/<sandbox>/`, each a btrfs subvolume with a limit when the template sets
 * workspace.maxSize. If any step fails, everything made so far is removed again.
 */
export async function createWorkspaces(
  paths: RuntimePaths,
  sandbox: string,
  template: TemplateModel,
  request: WorkspaceRequest,
  owner: RepoOwner,
): Promise<{ workspace: WorkspaceMount; mounts: NamedMount[] }> {
  const made: WorkspaceMount[] = [];
  const quotas: QuotaState = { plan: null, readOnly: template.readOnlyWorkspace, made: [] };
  try {
    if (template.workspaceMaxSize !== null) {
      await mkdir(paths.workspacesDir, { recursive: true, mode: 0o711 });
      quotas.plan = await quotaPlan(paths.workspacesDir, template.workspaceMaxSize);
    }
    const workspace = await createPrimary(paths, sandbox, request, owner, quotas);
    made.push(workspace);
    const mounts: NamedMount[] = [];
    for (const mount of template.mounts) {
      const created = await createMount(paths, sandbox, mount, request, owner, quotas);
      made.push(created);
      mounts.push(created);
    }
    return { workspace, mounts };
  } catch (error) {
    for (const mount of made.reverse()) await removeWorkspace(mount, owner).catch(() => undefined);
    await removeSandboxDir(sandboxWorkspacesDir(paths, sandbox), owner).catch(() => undefined);
    for (const quota of quotas.made) await dropQuotaSubvolume(quota).catch(() => undefined);
    throw error;
  }
}

function sandboxWorkspacesDir(paths: RuntimePaths, sandbox: string): string {
  return pathUnder(paths.workspacesDir, sandbox);
}

async function createPrimary(
  paths: RuntimePaths,
  sandbox: string,
  request: WorkspaceRequest,
  owner: RepoOwner,
  quotas: QuotaState,
): Promise<WorkspaceMount> {
  if (request.empty === true)
    return withQuota(
      { mode: "direct", hostPath: await managedDir(paths, sandbox, primaryDir, owner, quotas), managed: true },
      quotas,
    );
  if (request.directory !== undefined && request.repo !== undefined)
    throw new SandboxError("give either -w DIR or -r REPO, not both", "usage");
  const source = request.directory ?? request.repo;
  if (source === undefined)
    throw new SandboxError(
      "no workspace: give -w DIR (a directory as is) or -r REPO (a jj workspace or git worktree of it)",
      "usage",
    );
  const real = await userDirectory(source, owner);
  if (request.directory !== undefined || request.direct === true) return direct(real, false, quotas);
  const target = await managedDir(paths, sandbox, primaryDir, owner, quotas);
  return withQuota(
    await checkOut(
      real,
      await detectMode(real),
      target,
      { jjName: sandbox, branch: `forage-${sandbox}`, existingBranch: null },
      owner,
    ),
    quotas,
  );
}

async function createMount(
  paths: RuntimePaths,
  sandbox: string,
  mount: MountModel,
  request: WorkspaceRequest,
  owner: RepoOwner,
  quotas: QuotaState,
): Promise<NamedMount> {
  const place = { name: mount.name, containerPath: mount.containerPath, readOnly: mount.readOnly };
  if (mount.hostPath !== null)
    return { ...place, ...direct(await realDirectory(expandHome(mount.hostPath, owner.home)), mount.readOnly, quotas) };
  const repo = await userDirectory(repoOf(mount, request), owner);
  const mode = mount.mode ?? (await detectMode(repo));
  if (mode === "direct") return { ...place, ...direct(repo, mount.readOnly, quotas) };
  const target = await managedDir(paths, sandbox, mount.name, owner, quotas);
  const checkedOut = await checkOut(
    repo,
    mode,
    target,
    { jjName: `${sandbox}-${mount.name}`, branch: `forage-${sandbox}-${mount.name}`, existingBranch: mount.branch },
    owner,
  );
  return { ...place, ...withQuota(checkedOut, quotas) };
}

/**
 * A directory bound as is. With workspace.maxSize a writable one is refused rather than limited:
 * it is the user's own (a limit set on it would outlive a crashed `down`, and change a setting
 * that is theirs), and an unlimited mount would make the template's limit a promise not kept.
 */
function direct(hostPath: string, readOnly: boolean, quotas: QuotaState): WorkspaceMount {
  if (quotas.plan !== null && !readOnly && !quotas.readOnly) {
    throw new SandboxError(
      `workspace.maxSize limits only workspaces forage-ctl creates, and ${hostPath} would be mounted writable as is: use -r REPO without --direct (a jj workspace or git worktree), mount it read-only, or use a template without workspace.maxSize (on a btrfs subvolume you can limit it yourself: btrfs qgroup limit SIZE ${hostPath})`,
      "usage",
    );
  }
  return { mode: "direct", hostPath, managed: false };
}

/** The workspace with the limit its directory got (the last one made), when there is one. */
function withQuota<T extends WorkspaceMount>(mount: T, quotas: QuotaState): T {
  const quota = quotas.plan === null ? undefined : quotas.made.at(-1);
  return quota === undefined ? mount : { ...mount, quota };
}

/** The repository a template mount names: an absolute path, a -r NAME=PATH name, or the default -r. */
function repoOf(mount: MountModel, request: WorkspaceRequest): string {
  if (mount.repo?.startsWith("/") === true) return mount.repo;
  if (mount.repo !== null) {
    const path = request.namedRepos?.[mount.repo];
    if (path === undefined)
      throw new SandboxError(
        `mount "${mount.name}" needs repository "${mount.repo}": give -r ${mount.repo}=PATH`,
        "usage",
      );
    return path;
  }
  if (request.repo === undefined)
    throw new SandboxError(`mount "${mount.name}" uses the default repository: give -r PATH`, "usage");
  return request.repo;
}

/** jj when the repository has .jj (jj before git: a colocated repository has both), else git. */
async function detectMode(repo: string): Promise<"jj" | "git-worktree"> {
  if (await pathExists(join(repo, ".jj"))) return "jj";
  if (await pathExists(join(repo, ".git"))) return "git-worktree";
  throw new SandboxError(
    `${repo} is neither a jj repository (.jj) nor a git repository (.git): use --direct (or -w) to mount it as is`,
    "vcs",
  );
}

/** A jj workspace or git worktree of `sourceRepo` (a real path) at `target`. */
async function checkOut(
  sourceRepo: string,
  mode: "jj" | "git-worktree",
  target: string,
  names: { jjName: string; branch: string; existingBranch: string | null },
  owner: RepoOwner,
): Promise<WorkspaceMount> {
  if (mode === "jj") {
    // The stores are checked before jj runs, and the workspace is pointed at the checked path.
    const stores = await jjStores(sourceRepo, owner);
    await addJjWorkspace(owner, sourceRepo, names.jjName, target, names.existingBranch, stores[0]?.path ?? "");
    return { mode, hostPath: target, managed: true, sourceRepo, vcsName: names.jjName, stores };
  }
  // A mount's branch is checked out itself; otherwise the sandbox gets its own new branch.
  const own = names.existingBranch === null;
  const branch = names.existingBranch ?? names.branch;
  await addGitWorktree(owner, sourceRepo, target, branch, { checkout: !own });
  const stores = await gitStore(sourceRepo, await worktreeGitDirs(owner, target), owner);
  return { mode, hostPath: target, managed: true, sourceRepo, vcsName: branch, ownBranch: own, stores };
}

/**
 * An empty directory for a jj workspace or git worktree, owned by the repository's owner; a
 * btrfs subvolume with a limit under workspace.maxSize.
 */
async function managedDir(
  paths: RuntimePaths,
  sandbox: string,
  name: string,
  owner: RepoOwner,
  quotas: QuotaState,
): Promise<string> {
  // The owner must reach it: the state directory is traversable (not listable) for everyone.
  await mkdir(paths.workspacesDir, { recursive: true, mode: 0o711 });
  for (const dir of [paths.stateDir, paths.workspacesDir]) await chmod(dir, ((await stat(dir)).mode & 0o7777) | 0o011);
  // Made and handed over child first: once the parent is the owner's, nothing here is touched
  // again by root (the owner could swap its entries for links). The owner removes them later.
  const parent = sandboxWorkspacesDir(paths, sandbox);
  await mkdir(parent, { recursive: true, mode: 0o755 });
  const dir = pathUnder(parent, name);
  if (quotas.plan === null) await mkdir(dir, { mode: 0o755 });
  else quotas.made.push(await createQuotaSubvolume(dir, quotas.plan, paths.workspacesDir));
  await lchown(dir, owner.uid, owner.gid);
  await lchown(parent, owner.uid, owner.gid);
  return dir;
}

/** The directory's real path (links resolved: that is what gets recorded and bound). */
async function realDirectory(path: string): Promise<string> {
  const info = await stat(path).catch(() => undefined);
  if (info?.isDirectory() !== true) throw new SandboxError(`${path} is not an existing directory`, "usage");
  return realpath(path);
}

/**
 * A directory the user named (-w, -r): its real path, checked through a descriptor to be the
 * user's own. Root's directories are refused: a user who swaps a directory of theirs and a link
 * while `up` runs must not get a directory of root's (or anyone's) recorded and mounted.
 */
async function userDirectory(path: string, owner: RepoOwner): Promise<string> {
  return requirePinnedDirectory(await realDirectory(path), [owner.uid]);
}
