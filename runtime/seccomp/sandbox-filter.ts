import { access, constants, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Bind } from "../core/bind.js";
import { packageRoot } from "../core/package-root.js";
import { pathUnder } from "../core/names.js";
import { writeFileAtomic } from "../core/write-file-atomic.js";
import type { RuntimePaths } from "../core/paths.js";
import { SandboxError } from "../core/errors.js";
import { compileFilter } from "./compile.js";
import { runningArch } from "./syscall-tables.js";

/**
 * How the filter is applied: every process entering a sandbox (exec, attach, shell, init
 * commands, sshd and what it spawns, the host-root payload) passes through `forage-enter`, a
 * small static C helper run inside the sandbox's namespaces before anything drops privileges.
 * Not nspawn's own filter: it covers only nspawn's payload, and commands enter through nsenter,
 * beside it. Not bubblewrap: one more setuid-capable tool for one prctl. The helper is bound
 * read-only from the package, the program from a root-owned per-sandbox file.
 */
export const enterMountPath = "/run/forage/enter";
/** The sandbox's compiled program inside (read-only; written by the runtime at start). */
export const filterMountPath = "/run/forage/seccomp.bpf";

/** The built helper (scripts/build-native.sh, part of `npm run build`). */
export function enterHelperPath(): string {
  return join(packageRoot(), "dist/native/forage-enter");
}

/**
 * The argv prefix that runs the rest of an argv inside a sandbox under its filter; with an audit
 * id (kernel-refusals.ts), what the filter refuses is counted for the sandbox.
 */
export function enterArgv(auditId?: number): string[] {
  return [enterMountPath, ...(auditId === undefined ? [] : [`--audit-id=${auditId}`]), filterMountPath];
}

export function sandboxFilterPath(paths: RuntimePaths, name: string): string {
  return pathUnder(paths.seccompDir, `${name}.bpf`);
}

/**
 * Compiles the sandbox's filter for this host's architecture, with the template's allowed-back
 * groups and syscalls, into its root-owned, read-only program file. Refuses when the helper was
 * not built, since a sandbox must never start unfiltered.
 */
export async function writeSandboxFilter(paths: RuntimePaths, name: string, allow: readonly string[]): Promise<void> {
  const helper = enterHelperPath();
  if (
    !(await access(helper, constants.X_OK).then(
      () => true,
      () => false,
    ))
  ) {
    throw new SandboxError(
      `the seccomp helper ${helper} is missing: build it with npm run build (needs gcc and a static libc: scripts/install.sh installs them)`,
      "container",
    );
  }
  await mkdir(paths.seccompDir, { recursive: true, mode: 0o755 });
  const file = sandboxFilterPath(paths, name);
  await writeFileAtomic(file, compileFilter(runningArch(), allow), 0o444);
  // What the running filter allows back, for status (the template may change while it runs).
  await writeFile(allowedPath(paths, name), `${JSON.stringify([...allow])}\n`, { mode: 0o644 });
}

export async function removeSandboxFilter(paths: RuntimePaths, name: string): Promise<void> {
  await rm(sandboxFilterPath(paths, name), { force: true });
  await rm(allowedPath(paths, name), { force: true });
}

/** Gives a sandbox's program files another sandbox's name (a claimed pool member's): the bound copy inside is the same file. */
export async function renameSandboxFilter(paths: RuntimePaths, from: string, to: string): Promise<void> {
  await rename(sandboxFilterPath(paths, from), sandboxFilterPath(paths, to));
  await rename(allowedPath(paths, from), allowedPath(paths, to));
}

/** What the sandbox's running filter allows back, or null when it has none (stopped). */
export async function allowedBack(paths: RuntimePaths, name: string): Promise<string[] | null> {
  const text = await readFile(allowedPath(paths, name), "utf8").catch(() => null);
  if (text === null) return null;
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed) || !parsed.every((entry) => typeof entry === "string"))
    throw new Error(`internal: ${allowedPath(paths, name)} is not a list of names`);
  return parsed;
}

function allowedPath(paths: RuntimePaths, name: string): string {
  return pathUnder(paths.seccompDir, `${name}.allow.json`);
}

/** The helper and the program, bound read-only into the sandbox. */
export function seccompBinds(paths: RuntimePaths, name: string): Bind[] {
  return [
    { source: enterHelperPath(), target: enterMountPath, readOnly: true },
    { source: sandboxFilterPath(paths, name), target: filterMountPath, readOnly: true },
  ];
}
