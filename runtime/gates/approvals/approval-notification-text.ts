import { subjectSummary, type ApprovalView } from "./approval-view.js";
import { escapeSandboxText } from "../shared/agent-text.js";

/**
 * How much of the summary a notification shows: desktops fold a long body after two or three
 * lines, so a long host name is cut by subjectSummary, keeping its end (the domain).
 */
const bodyWidth = 120;

/**
 * The title of a request's desktop notification: who asks for what kind. The title is plain
 * text to a notification server (the Desktop Notifications Specification's "summary").
 *
 * @example notificationTitle(request) // → "forage: fix-42 asks (push)"
 */
export function notificationTitle(request: ApprovalView): string {
  return `forage: ${escapeSandboxText(request.sandbox)} asks (${request.kind})`;
}

/**
 * The body: what is asked, then how to answer. A server that renders body markup (GNOME Shell,
 * KDE, dunst: the specification's "body-markup") would read `<a href=…>` or `<img src=…>` in a
 * sandbox's text as its own, so that text is escaped twice: every invisible or direction-changing
 * character (subjectSummary, through agent-text.ts), then `& < >` as entities.
 *
 * @example notificationBody(request) // → "origin refs/heads/fix 1a2b3c4d5e6f..5d6e7f8a9b0c (3 commits)\nforage-ctl approve k7q2xm   ·   forage-ctl deny k7q2xm"
 */
export function notificationBody(request: ApprovalView): string {
  return `${escapeMarkup(subjectSummary(request, bodyWidth))}\nforage-ctl approve ${request.id}   ·   forage-ctl deny ${request.id}`;
}

const entities: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };

function escapeMarkup(text: string): string {
  return text.replace(/[&<>]/g, (c) => entities[c] ?? c);
}
