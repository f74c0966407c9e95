import type { Command } from "commander";
import { operationsOf } from "../operations.js";
import { printJson, printTable } from "../output.js";
import type { VcsFinding } from "../../runtime/workspaces/vcs-scan.js";

const targetHelp = "a sandbox (its workspace) or a directory (a path with a /, e.g. . or ./proj)";

/**
 * vcs-check and git: looking at what an agent did in a workspace without running its
 * configuration (issue 26): a nested repository, a submodule or a jj repository the agent made
 * brings config of its own, and the user's plain `git status` at the top runs it.
 */
export function registerVcs(program: Command): void {
  registerVcsCheck(program);
  registerGit(program);
}

function registerVcsCheck(program: Command): void {
  program
    .command("vcs-check")
    .description(
      "List every git and jj setting in a workspace that can run a program (top, nested repositories, submodules, worktrees, jj)",
    )
    .argument("<target>", targetHelp)
    .option("--json", "print as JSON")
    .addHelpText(
      "after",
      `
Reads every repository's config files and hooks without running anything of theirs (includes are
followed, every condition taken as true). What it lists runs when you use git or jj there
yourself; forage-ctl git runs git with all of it taken away.

Exit status: 0 when nothing was found, 1 when something was, 2 when no sandbox has that name,
7 when git cannot be run. Values are the workspace's text, shown quoted and escaped.

Example:
  forage-ctl vcs-check myproj
  forage-ctl vcs-check ~/src/myproj --json`,
    )
    .action(async (target: string, options: { json?: boolean }) => {
      const { checkWorkspace } = await import("../../runtime/workspaces/workspace-git.js");
      const scan = await checkWorkspace(await folderOf(program, target));
      process.exitCode = scan.findings.length === 0 ? 0 : 1;
      if (options.json === true) return printJson(scan);
      if (!scan.complete)
        process.stderr.write(
          `forage-ctl: warning: ${scan.folder} has more than the look goes through (500000 entries, 64 levels): not all of it was read\n`,
        );
      if (scan.findings.length === 0)
        return void process.stdout.write(
          `${scan.folder}: nothing in ${scan.repositories.length} repositories can run a program\n`,
        );
      printTable(["REPOSITORY", "VCS", "SETTING", "VALUE", "FILE", "RUNS"], scan.findings.map(row));
      process.stdout.write(
        `\n${scan.findings.length} settings can run a program when you use git or jj there: forage-ctl git ${target} -- status looks without them\n`,
      );
    });
}

function registerGit(program: Command): void {
  program
    .command("git")
    .description(
      "Run the host's git in a workspace with everything its config could run taken away: hooks, fsmonitor, filters, drivers, pagers, helpers",
    )
    .argument("<target>", targetHelp)
    .argument("<args...>", "git's arguments (put -- before them)")
    .addHelpText(
      "after",
      `
Looks through the workspace first (as vcs-check) and gives git, as -c settings, a value of its
own for every setting found (your own system or global value where you have one), and always
core.fsmonitor=false, core.hooksPath=/dev/null, protocol.ext.allow=never. Git hands -c settings
to the git it runs in nested repositories and submodules. Where the kernel has Landlock, git can
execute only its own programs, cat and ssh (and programs your own settings name): a setting the
agent adds meanwhile fails to start. No pager, no editor: pipe to less, commit with -m. Git's
shell and Perl commands (mergetool, send-email, submodule before git 2.43) do not run. As root,
git runs as the workspace's owner. Its exit status is forage-ctl's.

Example:
  forage-ctl git myproj -- status
  forage-ctl git ~/src/myproj -- diff --stat`,
    )
    .action(async (target: string, args: string[]) => {
      const { runWorkspaceGit } = await import("../../runtime/workspaces/workspace-git.js");
      const { code, notes } = await runWorkspaceGit(await folderOf(program, target), args);
      for (const note of notes) process.stderr.write(`forage-ctl: warning: ${note}\n`);
      process.exitCode = code;
    });
}

/** A directory as given (a path with a slash, or . and ..), or the workspace of the sandbox so named. */
async function folderOf(program: Command, target: string): Promise<string> {
  const { workspaceFolder } = await import("../../runtime/workspaces/workspace-git.js");
  if (target.includes("/") || target === "." || target === "..") return workspaceFolder(target);
  return workspaceFolder((await (await operationsOf(program)).status({ name: target })).workspace);
}

function row(finding: VcsFinding): string[] {
  return [
    finding.repository,
    finding.vcs,
    finding.key,
    finding.value === null ? "-" : quoted(finding.value),
    finding.file,
    finding.runs,
  ];
}

/**
 * The workspace's text as data: quoted, at most 80 characters, every control, invisible,
 * direction-changing or combining character and every space but the plain one as \u escapes.
 */
export function quoted(text: string): string {
  const cut = text.length > 80 ? `${text.slice(0, 80)}…` : text;
  return `"${cut.replace(/[\\"]/g, (c) => `\\${c}`).replace(/[^\P{C}]|[\p{Z}\p{M}]/gu, (c) => (c === " " ? c : `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`))}"`;
}
