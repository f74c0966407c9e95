import { createServer, type Server, type Socket } from "node:net";
import type { AskApproval, ApprovalDecision, SignDestination } from "../approvals/approval.js";
import { isApproved } from "../approvals/approval.js";
import { heldDestination } from "../approvals/approval-answers.js";
import { listenPrivately } from "../../core/private-socket.js";
import {
  failureMessage,
  FrameDecoder,
  identitiesMessage,
  parseRequest,
  signResponseMessage,
  type AgentRequest,
} from "./agent-messages.js";
import { describeSignData } from "./sign-data.js";
import type { AgentKey } from "./ssh-key.js";
import { MalformedMessage } from "./wire.js";

/** What happened to one SIGN_REQUEST, for the sandbox's audit log. */
export interface SignRecord {
  fingerprint: string;
  comment: string;
  destination?: SignDestination;
  signed: boolean;
  /** Why: confirm off, the human's answer (once, always, for, deny, expired), an earlier `for`, or a failure. */
  reason: "confirm-off" | ApprovalDecision["decision"] | "approved-earlier" | "unknown-key" | "sign-failed";
}

export interface SshAgentOptions {
  /** The sandbox the agent serves (named in every ask). */
  sandbox: string;
  /** The keys it offers, in this order; nothing else is listed or signs. */
  keys: AgentKey[];
  /** Ask before every signature (true), or sign and log (false). */
  confirm: boolean;
  ask: AskApproval;
  /** Called once per SIGN_REQUEST, whatever its outcome. */
  record: (record: SignRecord) => void;
  /** How long an ask waits; the queue's default when undefined. */
  deadlineMs?: number;
  now?: () => number;
}

/** Requests one connection may have waiting behind the one in progress. */
const maxQueued = 8;
/** Connections at once: an agent is used by a few ssh and git processes, not by hundreds. */
const maxConnections = 32;

/**
 * A sandbox's SSH agent (draft-miller-ssh-agent) on a unix socket: it lists its keys and signs
 * with them, each signature approved by the human (`ask`) unless `confirm` is off or the key was
 * approved `for` a while (until `untilMs`) for the same destination (what the human saw: a login
 * as another user, to another server, or a signature in another namespace asks again). `always`
 * is refused by the queue for this kind (approval-answers.ts), and so is `for` where the destination
 * is not shown in full (no host key, or data that is no login nor SSHSIG): both count as once here.
 * Everything else is refused with SSH_AGENT_FAILURE. A malformed message (bad length,
 * field running past its end, over 256 KiB) is answered with SSH_AGENT_FAILURE and the
 * connection closed. Requests on one connection are answered in order, one at a time.
 */
export class SshAgentServer {
  private readonly server: Server;
  private readonly approvedUntil = new Map<string, number>();
  private readonly connections = new Set<Socket>();

  constructor(private readonly options: SshAgentOptions) {
    this.server = createServer((socket) => this.accept(socket));
  }

  /** Listens on `path` (in a root-owned directory), connectable by root and `ownerUid` only. */
  async listen(path: string, ownerUid: number): Promise<void> {
    await listenPrivately(this.server, path, ownerUid);
  }

  /** Stops listening and drops every connection (a pending ask's answer is then ignored). */
  async close(): Promise<void> {
    for (const socket of this.connections) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: Socket): void {
    if (this.connections.size >= maxConnections) {
      socket.destroy();
      return;
    }
    this.connections.add(socket);
    const decoder = new FrameDecoder();
    const queue: Buffer[] = [];
    let busy = false;
    const refuseAndClose = (): void => {
      queue.length = 0;
      socket.end(failureMessage());
      socket.destroySoon();
    };
    const drain = async (): Promise<void> => {
      if (busy) return;
      busy = true;
      for (let body = queue.shift(); body !== undefined && !socket.destroyed; body = queue.shift()) {
        let request: AgentRequest;
        try {
          request = parseRequest(body);
        } catch {
          refuseAndClose();
          break;
        }
        const reply = await this.answer(request).catch(() => failureMessage());
        if (!socket.destroyed) socket.write(reply);
      }
      busy = false;
    };
    socket.on("data", (chunk: Buffer) => {
      try {
        queue.push(...decoder.push(chunk));
      } catch (error) {
        if (error instanceof MalformedMessage) refuseAndClose();
        else socket.destroy();
        return;
      }
      if (queue.length > maxQueued) return refuseAndClose();
      void drain();
    });
    socket.on("error", () => undefined);
    socket.on("close", () => this.connections.delete(socket));
  }

  private async answer(request: AgentRequest): Promise<Buffer> {
    if (request.type === "identities") return identitiesMessage(this.options.keys);
    if (request.type === "refused") return failureMessage();
    const key = this.options.keys.find((each) => each.blob.equals(request.keyBlob));
    const destination = describeSignData(request.data);
    if (key === undefined) {
      this.options.record({
        fingerprint: "",
        comment: "",
        ...(destination === undefined ? {} : { destination }),
        signed: false,
        reason: "unknown-key",
      });
      return failureMessage();
    }
    const about = {
      fingerprint: key.fingerprint,
      comment: key.comment,
      ...(destination === undefined ? {} : { destination }),
    };
    const reason = await this.decide(about);
    if (reason === "deny" || reason === "expired") {
      this.options.record({ ...about, signed: false, reason });
      return failureMessage();
    }
    const signature = await key.sign(request.data, request.flags).catch(() => null);
    this.options.record({ ...about, signed: signature !== null, reason: signature === null ? "sign-failed" : reason });
    return signature === null ? failureMessage() : signResponseMessage(signature);
  }

  /** Whether to sign: without asking (confirm off, or approved for a while still running), or the human's answer. */
  private async decide(about: {
    fingerprint: string;
    comment: string;
    destination?: SignDestination;
  }): Promise<SignRecord["reason"]> {
    const now = this.options.now ?? Date.now;
    if (!this.options.confirm) return "confirm-off";
    // The key and where it goes, as the human was shown them: an approval for a while covers no other.
    const approval = JSON.stringify([about.fingerprint, about.destination ?? null]);
    if ((this.approvedUntil.get(approval) ?? 0) > now()) return "approved-earlier";
    const { deadlineMs } = this.options;
    const answer = await this.options.ask({
      sandbox: this.options.sandbox,
      kind: "ssh-sign",
      subject: about,
      ...(deadlineMs === undefined ? {} : { deadlineMs }),
    });
    // The queue takes --for only where the destination is shown in full (approval-answers.ts); here too, should another asker pass one.
    if (answer.decision === "for" && heldDestination(about.destination))
      this.approvedUntil.set(approval, answer.untilMs);
    return isApproved(answer) ? answer.decision : answer.decision === "expired" ? "expired" : "deny";
  }
}
