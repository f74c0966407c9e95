/**
 * How `forage-ctl git` takes a setting's program away: a value of its own given with `-c`
 * (`cat` where git needs a program that passes content through; the user's own value instead
 * when their system or global config has one), the include followed and what it sets listed in
 * turn, or hooks turned off as a whole (core.hooksPath=/dev/null).
 */
export type Neutral = { kind: "value"; value: string } | { kind: "include" } | { kind: "hooks" };

/** A git setting that can make git run a program, what it runs, and how it is neutralised. */
export interface GitRisk {
  /** Matches the key as `git config --list` prints it (section and name lower-cased). */
  key: RegExp;
  runs: string;
  neutral: Neutral;
  /** Only values of this shape run anything (an alias runs a program only with `!`). */
  when?: RegExp;
}

const value = (text: string): Neutral => ({ kind: "value", value: text });

/**
 * Every git setting that can run a program, read from git-config(1) (git 2.39-2.47): the one list
 * both `forage-ctl vcs-check` (what it shows) and `forage-ctl git` (what it overrides) read.
 * Left out: uploadpack.packObjectsHook and safe.directory (git reads them only from the system,
 * global and command-line config, never from a repository's).
 */
export const gitRisks: readonly GitRisk[] = [
  { key: /^core\.fsmonitor$/, runs: "a command on every status, diff, add, commit", neutral: value("false") },
  { key: /^core\.hookspath$/, runs: "hooks from another directory", neutral: { kind: "hooks" } },
  { key: /^core\.sshcommand$/, runs: "a command for every fetch and push over ssh", neutral: value("ssh") },
  { key: /^core\.gitproxy$/, runs: "a command for git:// connections", neutral: value("none") },
  { key: /^core\.askpass$/, runs: "a command when git asks for a password", neutral: value("") },
  { key: /^core\.alternaterefscommand$/, runs: "a command on fetch and push", neutral: value("") },
  { key: /^core\.pager$|^pager\./, runs: "a pager command for git's output", neutral: value("cat") },
  { key: /^core\.editor$|^sequence\.editor$/, runs: "an editor command (commit, rebase -i)", neutral: value("false") },
  { key: /^credential\.(.+\.)?helper$/, runs: "a credential helper on fetch and push", neutral: value("") },
  { key: /^filter\..+\.(clean|smudge)$/, runs: "a filter on add, checkout, status, diff", neutral: value("cat") },
  { key: /^filter\..+\.process$/, runs: "a long-running filter on add, checkout, status, diff", neutral: value("") },
  { key: /^diff\..+\.textconv$/, runs: "a text conversion on diff, log -p, blame, show", neutral: value("cat") },
  {
    key: /^diff\..+\.command$|^diff\.external$/,
    runs: "an external diff program on diff, log -p, show",
    neutral: value(""),
  },
  { key: /^merge\..+\.driver$/, runs: "a merge driver on merge, rebase, cherry-pick, pull", neutral: value("") },
  { key: /^(diff|merge)tool\..+\.(cmd|path)$/, runs: "a tool on difftool, mergetool", neutral: value("") },
  { key: /^alias\./, runs: "a shell command when the alias is used", neutral: value(""), when: /^\s*!/ },
  {
    key: /^include\.path$|^includeif\..+\.path$/,
    runs: "settings of another file, which may be any of these",
    neutral: { kind: "include" },
  },
  { key: /^gpg\.program$/, runs: "a signing program on commit, tag, verify", neutral: value("gpg") },
  { key: /^gpg\.ssh\.program$/, runs: "a signing program on commit, tag, verify", neutral: value("ssh-keygen") },
  { key: /^gpg\.x509\.program$/, runs: "a signing program on commit, tag, verify", neutral: value("gpgsm") },
  { key: /^gpg\.openpgp\.program$/, runs: "a signing program on commit, tag, verify", neutral: value("gpg") },
  { key: /^gpg\.ssh\.defaultkeycommand$/, runs: "a command on commit, tag", neutral: value("") },
  { key: /^interactive\.difffilter$/, runs: "a filter on add -p", neutral: value("") },
  {
    key: /^remote\..+\.uploadpack$/,
    runs: "a program on fetch from a local or ssh remote",
    neutral: value("git-upload-pack"),
  },
  {
    key: /^remote\..+\.receivepack$/,
    runs: "a program on push to a local or ssh remote",
    neutral: value("git-receive-pack"),
  },
  { key: /^remote\..+\.vcs$/, runs: "a remote helper (git-remote-<vcs>) on fetch and push", neutral: value("") },
  // `protocol.ext.allow=never` is given always (see safe-git.ts): the default policy can stay "user".
  {
    key: /^protocol\.allow$/,
    runs: "transports such as ext:: (any command) when it says always",
    neutral: value("user"),
    when: /always/i,
  },
  {
    key: /^protocol\..+\.allow$/,
    runs: "that transport (ext:: runs any command) when it says always",
    neutral: value("never"),
    when: /always/i,
  },
  { key: /^submodule\..+\.update$/, runs: "a command on submodule update", neutral: value("checkout"), when: /^\s*!/ },
  {
    key: /^sendemail\.(.+\.)?(smtpserver|sendmailcmd|tocmd|cccmd|headercmd)$/,
    runs: "a command on send-email",
    neutral: value(""),
  },
  { key: /^trailer\..+\.(command|cmd)$/, runs: "a command on commit and interpret-trailers", neutral: value("") },
  { key: /^imap\.tunnel$/, runs: "a command on imap-send", neutral: value("") },
  {
    key: /^(web\.browser|browser\..+\.(cmd|path)|man\.viewer|man\..+\.(cmd|path))$/,
    runs: "a program on help and instaweb",
    neutral: value(""),
  },
  { key: /^guitool\..+\.cmd$/, runs: "a command from git gui", neutral: value("") },
  { key: /^hook\..+\.command$/, runs: "a hook command (config-based hooks)", neutral: value("") },
];

/** The risk a git setting is, or undefined when it runs nothing. */
export function gitRiskOf(key: string, setting: string | null): GitRisk | undefined {
  return gitRisks.find((risk) => risk.key.test(key) && (risk.when === undefined || risk.when.test(setting ?? "")));
}

/**
 * Settings of jj (0.3x-0.4x) that run a program, as dotted keys (a `[[--scope]]` table's own
 * prefix taken off): its pager, editors, diff and merge tools, fix tools, aliases (`util exec`
 * runs anything), signing programs, and the git it runs. jj has no hooks.
 */
export const jjRisks: readonly { key: RegExp; runs: string }[] = [
  {
    key: /^ui\.(pager|editor|diff-editor|merge-editor|diff-formatter|diff\.tool|diff\.format|default-command)(\.|$)/,
    runs: "a program on log, diff, describe, split, resolve",
  },
  { key: /^merge-tools\./, runs: "a diff or merge tool" },
  { key: /^fix\.tools\./, runs: "a command on jj fix" },
  { key: /^aliases\./, runs: "a command (an alias may run `util exec`)" },
  { key: /^signing\./, runs: "a signing program on every commit it signs" },
  { key: /^git\.executable-path$/, runs: "the git jj runs on fetch and push" },
];

/** The risk a jj setting is, or undefined when it runs nothing. */
export function jjRiskOf(key: string): { runs: string } | undefined {
  const plain = key.replace(/^(--scope\.)+/, "");
  return jjRisks.find((risk) => risk.key.test(plain));
}
