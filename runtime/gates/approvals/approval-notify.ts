import { lstat } from "node:fs/promises";
import type { HostUser } from "../../core/host-user.js";
import { userCommandPath } from "../../core/user-command-path.js";
import { runCommand, type RunResult } from "../../core/run-command.js";
import { notificationBody, notificationTitle } from "./approval-notification-text.js";
import { approvalJson } from "./approval-json.js";
import type { ApprovalView } from "./approval-view.js";
import { escapeSandboxText } from "../shared/agent-text.js";

/** Where the notifications go: the configured user, the config's hook, and the daemon's log. */
export interface NotifyTarget {
  user: HostUser;
  /** approvals.notify: argv run with the request as JSON on stdin, or null. */
  hook: readonly string[] | null;
  log: (line: string) => void;
  /** Where session buses live (tests: a scratch directory). */
  runUserDir?: string;
  /** How long the hook (and notify-send) may run before it is killed. */
  timeoutMs?: number;
}

/** How long a hook may take: long enough for a push to a phone, short enough to never pile up. */
export const notifyTimeoutMs = 10_000;

/**
 * Tells the human about a new request, without waiting: a desktop notification when the user has
 * a session bus, and the config's hook. Both run as the user, never as root, with argv arrays
 * (never a shell); a failure is logged and never holds the queue. The promise it returns settles
 * (never rejects) when both are done: the queue does not wait for it, a test does.
 */
export function approvalNotifier(target: NotifyTarget): (request: ApprovalView) => Promise<void> {
  return async (request) => {
    const desktop = desktopNotification(request, target).catch((error: unknown) =>
      target.log(`approval ${request.id}: desktop notification failed: ${String(error)}`),
    );
    const hook =
      target.hook === null
        ? undefined
        : runHook(request, target.hook, target).catch((error: unknown) =>
            target.log(`approval ${request.id}: approvals.notify failed: ${String(error)}`),
          );
    await Promise.all([desktop, hook]);
  };
}

/** The environment of what runs as the user: theirs to own, nothing of the daemon's but PATH. */
function userEnvironment(user: HostUser, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: userCommandPath(user), HOME: user.home, USER: user.name, LOGNAME: user.name, ...extra };
}

async function runHook(request: ApprovalView, hook: readonly string[], target: NotifyTarget): Promise<void> {
  const [program = "", ...args] = hook;
  const result = await runCommand(program, args, {
    // As `forage-ctl approvals --json` shows it: the sandbox's text escaped (approval-json.ts).
    input: `${JSON.stringify(approvalJson(request))}\n`,
    uid: target.user.uid,
    gid: target.user.gid,
    cwd: "/",
    env: userEnvironment(target.user),
    timeoutMs: target.timeoutMs ?? notifyTimeoutMs,
    reject: false,
    stdout: "ignore",
  });
  if (result.failed) target.log(`approval ${request.id}: approvals.notify (${program}) ${failure(result)}`);
}

/**
 * notify-send as the user on their session bus; nothing when they have none or it is not
 * installed. The bus must be a socket itself (lstat): a link there is not followed.
 */
async function desktopNotification(request: ApprovalView, target: NotifyTarget): Promise<void> {
  const runtimeDir = `${target.runUserDir ?? "/run/user"}/${target.user.uid}`;
  const bus = await lstat(`${runtimeDir}/bus`).catch(() => undefined);
  if (bus?.isSocket() !== true) return;
  // notify-send reads C escapes in its body argument (libnotify's g_strcompress): `\x1b` would
  // show as `x1b`. Its backslashes doubled, the body reaches the desktop as written.
  const body = notificationBody(request).replaceAll("\\", "\\\\");
  // Looked up as the user, after the uid is dropped, in their PATH (their NixOS profile: the
  // daemon's service PATH has no libnotify); not installed (ENOENT) is no failure.
  const result = await runCommand(
    "notify-send",
    ["--app-name=forage", "--urgency=critical", "--", notificationTitle(request), body],
    {
      uid: target.user.uid,
      gid: target.user.gid,
      cwd: "/",
      env: userEnvironment(target.user, {
        DBUS_SESSION_BUS_ADDRESS: `unix:path=${runtimeDir}/bus`,
        XDG_RUNTIME_DIR: runtimeDir,
      }),
      timeoutMs: target.timeoutMs ?? notifyTimeoutMs,
      reject: false,
    },
  );
  if (result.failed && (result.spawnError as NodeJS.ErrnoException | undefined)?.code !== "ENOENT")
    target.log(`approval ${request.id}: notify-send ${failure(result)}`);
}

function failure(result: RunResult): string {
  if (result.spawnError !== undefined) return `could not start: ${result.spawnError.message}`;
  if (result.timedOut) return "was killed at its timeout";
  const said = result.stderr.trim().split("\n").slice(-3).join(" | ");
  return `${result.exitCode === undefined ? `died of ${result.signal ?? "a signal"}` : `exited ${result.exitCode}`}${said === "" ? "" : `: ${escapeSandboxText(said.slice(0, 500))}`}`;
}
