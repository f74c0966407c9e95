import { existsSync } from "node:fs";
import { basename, join } from "node:path";
import type { Request } from "../../runtime/api/calls.js";
import { invalidSandboxName, sandboxNamePattern } from "../../runtime/core/names.js";

/** What the wizard asks, as typed (the directory is made absolute by the caller). */
export interface WizardAnswers {
  directory: string;
  template: string;
  name: string;
  /** Mount the directory as is, even when it is a jj or git repository (up --direct). */
  direct: boolean;
  /** Mount the user's ~/.tmux.conf (up's default; off is up --no-mux-config). */
  muxConfig: boolean;
  gitUser: string;
  gitEmail: string;
  sshKeyPath: string;
}

/**
 * A sandbox name from a directory's name: lower case, every run of other characters one `-`,
 * at most 63 characters, as the sandbox-name rule wants.
 *
 * @example defaultName("/home/al/src/My_App") // → "my-app"
 */
export function defaultName(directory: string): string {
  return basename(directory)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+/, "")
    .slice(0, 63)
    .replace(/-+$/, "");
}

/** What is wrong with a name for a new sandbox (the sandbox-name rule, or taken), or null. */
export function nameProblem(name: string, taken: ReadonlySet<string>): string | null {
  if (!sandboxNamePattern.test(name)) return invalidSandboxName(name);
  if (taken.has(name)) return `a sandbox named ${name} exists already: choose another name`;
  return null;
}

/** A jj or git repository, as up tells them (.jj, else .git): it gets a workspace or worktree of its own. */
export function isRepository(directory: string): boolean {
  return existsSync(join(directory, ".jj")) || existsSync(join(directory, ".git"));
}

/**
 * The `up` request the answers make, the one `forage-ctl up` builds from the same choices: a
 * repository is given as -r (with --direct when asked), any other directory as -w; the
 * advanced fields only when filled in. `directory` and `sshKeyPath` are absolute here.
 *
 * @example upRequestOf({ directory: "/src/app", template: "claude", name: "app", direct: false, … }, true)
 * // → { name: "app", template: "claude", repo: "/src/app" }
 */
export function upRequestOf(answers: WizardAnswers, repository: boolean): Request<"up"> {
  const request: Request<"up"> = { name: answers.name, template: answers.template };
  if (!repository) request.workspace = answers.directory;
  else {
    request.repo = answers.directory;
    if (answers.direct) request.direct = true;
  }
  if (!answers.muxConfig) request.muxConfig = false;
  if (answers.gitUser.trim() !== "") request.gitUser = answers.gitUser.trim();
  if (answers.gitEmail.trim() !== "") request.gitEmail = answers.gitEmail.trim();
  if (answers.sshKeyPath.trim() !== "") request.sshKeyPath = answers.sshKeyPath.trim();
  return request;
}
