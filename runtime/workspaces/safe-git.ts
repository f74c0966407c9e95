import { spawn } from "node:child_process";
import { open, realpath } from "node:fs/promises";
import { join } from "node:path";
import { findExecutable } from "../core/find-executable.js";
import { packageRoot } from "../core/package-root.js";
import { runGit, type ConfigEntry, type GitRunner } from "./git-config-file.js";
import { gitRiskOf } from "./vcs-risks.js";
import type { VcsScan } from "./vcs-scan.js";

/**
 * Settings `forage-ctl git` always gives: no fsmonitor, no hooks (from any directory), no ext::
 * transport, whatever the workspace says, in this git and in every git it starts for a nested
 * repository or submodule (git hands `-c` settings on in GIT_CONFIG_PARAMETERS).
 */
const always: readonly [string, string][] = [
  ["core.fsmonitor", "false"],
  ["core.hooksPath", "/dev/null"],
  ["protocol.ext.allow", "never"],
];

/**
 * The `-c` settings that take away every program the scan found (vcs-risks.ts): the user's own
 * value where their system or global config sets that key (their git-lfs filter keeps working),
 * else the risk's neutral value; a filter also made not required (a neutral one must not fail
 * the command). Credential helpers are a list: emptied, then the user's own given again.
 */
export function neutralSettings(scan: VcsScan, own: readonly ConfigEntry[]): [string, string][] {
  const settings: [string, string][] = [...always];
  const ownValues = (key: string): string[] =>
    own.filter((entry) => entry.key === key && entry.value !== null).map((entry) => entry.value ?? "");
  const done = new Set<string>();
  let credentials = false;
  for (const { key, value, vcs } of scan.findings) {
    const risk = vcs === "git" ? gitRiskOf(key, value) : undefined;
    if (risk === undefined || risk.neutral.kind !== "value" || done.has(key)) continue;
    done.add(key);
    if (/^credential\./.test(key)) credentials = true;
    else settings.push([key, ownValues(key).at(-1) ?? risk.neutral.value]);
    const filter = /^filter\.(.+)\.(clean|smudge|process)$/.exec(key);
    if (filter !== null) settings.push([`filter.${filter[1]}.required`, "false"]);
  }
  if (credentials)
    settings.push(
      ["credential.helper", ""],
      ...own
        .filter((entry) => /^credential\.(.+\.)?helper$/.test(entry.key) && entry.value !== null)
        .map((entry): [string, string] => [entry.key, entry.value ?? ""]),
    );
  return settings;
}

/** The static Landlock helper (native/forage-exec-only.c). */
export function execOnlyHelperPath(): string {
  return join(packageRoot(), "dist/native/forage-exec-only");
}

/**
 * What git may execute under the Landlock helper: git itself and its exec-path (its own
 * programs; the shell and Perl ones among them fail, having no interpreter), the ELF interpreter
 * they start through, cat (the neutral filter and text conversion), ssh (fetch and push), and
 * the programs the user's own settings kept name (a plain first word, resolved on PATH).
 */
export async function executables(git: GitRunner, settings: readonly [string, string][]): Promise<string[]> {
  const execPath = (await runGit(git, ["--exec-path"])).stdout.trim();
  const program = await realpath(git.program);
  const dirs = (git.env.PATH ?? "").split(":").filter((dir) => dir.startsWith("/"));
  const named = settings
    .map(([, value]) => /^([A-Za-z0-9._/+-]+)(\s|$)/.exec(value)?.[1])
    .filter((word): word is string => word !== undefined && word !== "false");
  const found: string[] = [program];
  for (const name of ["cat", "ssh", ...named]) {
    const path = name.startsWith("/") ? name : await findExecutable([name], dirs);
    if (path !== undefined) found.push(await realpath(path).catch(() => path));
  }
  if (execPath.startsWith("/")) found.push(execPath);
  const interpreter = await elfInterpreter(program);
  if (interpreter !== undefined) found.push(await realpath(interpreter).catch(() => interpreter));
  return [...new Set(found)];
}

/** The ELF interpreter (PT_INTERP) a 64-bit little-endian program names, or undefined (static, or not ELF64). */
export async function elfInterpreter(program: string): Promise<string | undefined> {
  const file = await open(program, "r");
  try {
    const header = Buffer.alloc(64);
    await file.read(header, 0, 64, 0);
    if (header.readUInt32BE(0) !== 0x7f454c46 || header[4] !== 2 || header[5] !== 1) return undefined;
    const [offset, size, count] = [
      Number(header.readBigUInt64LE(0x20)),
      header.readUInt16LE(0x36),
      header.readUInt16LE(0x38),
    ];
    const table = Buffer.alloc(size * count);
    await file.read(table, 0, table.length, offset);
    for (let i = 0; i < count; i++) {
      if (table.readUInt32LE(i * size) !== 3) continue;
      const [at, length] = [
        Number(table.readBigUInt64LE(i * size + 0x08)),
        Number(table.readBigUInt64LE(i * size + 0x20)),
      ];
      const text = Buffer.alloc(length);
      await file.read(text, 0, length, at);
      return text.toString("utf8").replace(/\0.*$/s, "");
    }
    return undefined;
  } finally {
    await file.close();
  }
}

/**
 * Runs the host's git in `cwd` with `args`, the scan's settings neutralised (neutralSettings) and,
 * where the kernel has Landlock, able to execute nothing but `allowed`; stdio is this process's,
 * no pager (GIT_PAGER=cat). Resolves with git's exit status, and whether Landlock held.
 */
export async function runSafeGit(
  git: GitRunner,
  cwd: string,
  args: readonly string[],
  settings: readonly [string, string][],
  allowed: readonly string[],
): Promise<{ code: number; landlock: boolean }> {
  const gitArgs = [...settings.flatMap(([key, value]) => ["-c", `${key}=${value}`]), ...args];
  const env = { ...git.env, GIT_PAGER: "cat" };
  const ids = git.uid === undefined ? {} : { uid: git.uid, gid: git.gid ?? git.uid };
  const run = (
    program: string,
    argv: string[],
    stderr: "inherit" | "pipe",
  ): Promise<{ code: number; stderr: string }> =>
    new Promise((done, fail) => {
      const child = spawn(program, argv, { cwd, env, stdio: ["inherit", "inherit", stderr], ...ids });
      let text = "";
      child.stderr?.on("data", (chunk: Buffer) => {
        text += chunk.toString();
        process.stderr.write(chunk);
      });
      child.once("error", fail);
      child.once("close", (code, signal) => done({ code: code ?? (signal === null ? 1 : 128), stderr: text }));
    });
  const limited = await run(execOnlyHelperPath(), [...allowed, "--", git.program, ...gitArgs], "pipe");
  // 69: this kernel has no Landlock (the helper said so before git started).
  if (limited.code !== 69 || !limited.stderr.startsWith("forage-exec-only: landlock"))
    return { code: limited.code, landlock: true };
  return { code: (await run(git.program, gitArgs, "inherit")).code, landlock: false };
}
