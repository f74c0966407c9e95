import type { Socket } from "node:net";
import type { GateVerdict } from "./push-decision.js";

/**
 * One message from a hook is at most this long: pre-receive's 32 updates take ~13 KiB (the hook
 * itself stops at 60 KiB and says so).
 */
export const maxHookMessage = 64 * 1024;

/**
 * Serves the control channel git-receive-pack hands its hooks as fd 3 (native/forage-git-relay.c):
 * the hooks of one push take turns on it, each sending one message ended by a NUL, each answered
 * in order by `answer`'s verdict, framed the same way. A message longer than `maxHookMessage` is
 * refused and the channel closed: nothing after it could be trusted to start a message.
 *
 * @example a hook writes "update\n<old> <new> refs/heads/a\n\0"; the gate answers "0forage push gate: ...\n\0"
 */
export function serveControlChannel(control: Socket, answer: (message: string) => Promise<GateVerdict>): void {
  let buffered = Buffer.alloc(0);
  let turn: Promise<void> = Promise.resolve();
  control.on("error", () => undefined);
  control.on("data", (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    for (let end = buffered.indexOf(0); end >= 0; end = buffered.indexOf(0)) {
      const message = buffered.subarray(0, end).toString("latin1");
      buffered = buffered.subarray(end + 1);
      turn = turn.then(async () => void control.write(encodeVerdict(await answer(message))));
    }
    if (buffered.length <= maxHookMessage) return;
    control.pause();
    turn = turn.then(
      () =>
        void control.end(
          encodeVerdict({ accepted: false, lines: ["error: forage push gate: the push names too many refs"] }),
        ),
    );
  });
}

/** The verdict byte ('0' accepts), the lines (control characters shown as '?': no NUL among them), the NUL. */
export function encodeVerdict(verdict: GateVerdict): string {
  return `${verdict.accepted ? "0" : "1"}${verdict.lines.map((line) => `${line.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, "?")}\n`).join("")}\0`;
}
