import { spawn, type ChildProcess } from "node:child_process";
import { StringDecoder } from "node:string_decoder";
import { isRecord } from "./json-rpc.js";
import { maxAnswerBytes } from "./server-messages.js";

/** A server that answers nothing for this long is given up on (a tool may work for minutes). */
const answerTimeoutMs = 10 * 60_000;

/** What may wait in the pipe to a server that does not read: beyond it, messages are refused, not held. */
const maxUnreadBytes = 8 * 1024 * 1024;

/** JSON-RPC's "method not found": what the gate answers a server's own requests with. */
const methodNotFound = -32601;

const serverRequestRefusal =
  "forage's MCP gate does not pass a server's requests (sampling, roots, elicitation) to the agent";

/** A request waiting for the server's answer. */
interface Waiting {
  resolve: (answer: Record<string, unknown>) => void;
  reject: (reason: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * The gate's end of one stdio MCP server (MCP's stdio transport: one JSON-RPC message per line
 * on the server's stdin and stdout), run in its sandbox by the host argv `launch` gives. The
 * process starts at the first message and again after it ended. Requests go with ids of the
 * gate's own (an agent's ids never reach the server, so no two clients' can collide, and no
 * answer can be claimed by a request it was not for); answers come back by them. The server's
 * own requests (sampling, roots, elicitation) are answered "not found" by the gate, its
 * notifications dropped: over the gate's JSON-only transport nothing could carry them to the
 * agent, and a server waiting for an answer would hang.
 */
export class StdioServerLink {
  private child: ChildProcess | undefined;
  private starting: Promise<ChildProcess> | undefined;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;

  constructor(
    /** Its name in the template, for messages. */
    readonly name: string,
    /** The host argv that starts the server in its sandbox, asked for at each start. */
    private readonly launch: () => Promise<string[]>,
    /** Called once the process has ended, with why. */
    private readonly ended: (why: string) => void = () => undefined,
  ) {}

  /**
   * Sends a request (its id replaced by the gate's) and resolves with the server's answer to it,
   * id as the gate's. `left` aborting (the agent gone) drops the wait and tells the server the
   * request is cancelled (MCP's notifications/cancelled), so nothing waits for an answer nobody reads.
   */
  async request(message: Record<string, unknown>, left?: AbortSignal): Promise<Record<string, unknown>> {
    const child = await this.running();
    if (left?.aborted === true) throw new Error("the agent left before the request was sent");
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`the MCP server ${this.name} gave no answer in ${answerTimeoutMs / 1000} s`));
      }, answerTimeoutMs);
      left?.addEventListener("abort", () => {
        if (!this.waiting.delete(id)) return;
        clearTimeout(timer);
        reject(new Error("the agent left before the answer"));
        const cancelled = { requestId: id, reason: "the agent left" };
        this.trySend(child, { jsonrpc: "2.0", method: "notifications/cancelled", params: cancelled });
      });
      this.waiting.set(id, { resolve, reject, timer });
      try {
        this.send(child, { ...message, id });
      } catch (error) {
        clearTimeout(timer);
        this.waiting.delete(id);
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  /** Sends a notification; nothing comes back. */
  async notify(message: Record<string, unknown>): Promise<void> {
    this.send(await this.running(), message);
  }

  /** Ends the server's process (its sandbox going away ends it too); resolves once it has ended. */
  async close(): Promise<void> {
    const child = this.child ?? (await this.starting?.catch(() => undefined));
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const closed = new Promise((resolve) => child.once("close", resolve));
    this.retire(child, `the MCP server ${this.name} was closed by the gate`);
    await closed;
  }

  private send(child: ChildProcess, message: Record<string, unknown>): void {
    // A server that stops reading would have the gate hold every message sent meanwhile.
    if ((child.stdin?.writableLength ?? 0) > maxUnreadBytes)
      throw new Error(`the MCP server ${this.name} is not reading its input (${maxUnreadBytes} bytes wait unread)`);
    // JSON.stringify escapes every line break inside strings: one message is one line.
    child.stdin?.write(`${JSON.stringify(message)}\n`);
  }

  /** send, for what the gate says on its own (a cancellation, an answer to the server's request): a server not reading ends. */
  private trySend(child: ChildProcess, message: Record<string, unknown>): void {
    try {
      this.send(child, message);
    } catch (error) {
      this.retire(child, error instanceof Error ? error.message : String(error));
    }
  }

  private running(): Promise<ChildProcess> {
    if (this.child !== undefined) return Promise.resolve(this.child);
    this.starting ??= this.start().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async start(): Promise<ChildProcess> {
    const [program, ...args] = await this.launch();
    if (program === undefined) throw new Error(`the MCP server ${this.name} has no command`);
    // Its stderr is the launcher's to keep, in its own sandbox (it may hold the server's secrets).
    const child = spawn(program, args, { stdio: ["pipe", "pipe", "ignore"] });
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", reject);
    });
    this.child = child;
    child.stdin.on("error", () => undefined); // A server gone mid-write: its exit says so.
    this.readLines(child);
    child.once("close", (code, signal) => {
      const how = signal === null ? `exited with code ${code ?? "?"}` : `was ended by ${signal}`;
      this.retire(child, `the MCP server ${this.name} ${how}`);
    });
    return child;
  }

  /** The server's stdout, a message per line, each bounded: a longer one ends the server. */
  private readLines(child: ChildProcess): void {
    const decoder = new StringDecoder("utf8");
    let partial = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      const lines = (partial + decoder.write(chunk)).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) this.onLine(child, line);
      if (Buffer.byteLength(partial) > maxAnswerBytes)
        this.retire(child, `the MCP server ${this.name} sent a message over ${maxAnswerBytes} bytes`);
    });
  }

  private onLine(child: ChildProcess, line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return; // Not JSON-RPC (a server that logs to stdout): nothing to relay.
    }
    if (!isRecord(message)) return;
    if (typeof message.method === "string") {
      const { id } = message;
      // Said in the gate's words only: nothing of the server's (its method) is echoed back at it.
      if (typeof id === "string" || typeof id === "number")
        this.trySend(child, { jsonrpc: "2.0", id, error: { code: methodNotFound, message: serverRequestRefusal } });
      return;
    }
    const waiting = typeof message.id === "number" ? this.waiting.get(message.id) : undefined;
    if (waiting === undefined || typeof message.id !== "number") return;
    this.waiting.delete(message.id);
    clearTimeout(waiting.timer);
    waiting.resolve(message);
  }

  /**
   * Done with this process, once: what waits is told why, `ended` is called, and the process is
   * asked to end (SIGTERM, which forage-enter passes on to the server in its sandbox) with its
   * pipes closed; the next message starts a new one.
   */
  private retire(child: ChildProcess, why: string): void {
    if (this.child !== child) return;
    this.child = undefined;
    for (const [id, waiting] of this.waiting) {
      clearTimeout(waiting.timer);
      waiting.reject(new Error(why));
      this.waiting.delete(id);
    }
    this.ended(why);
    child.kill("SIGTERM");
    child.stdin?.destroy();
    child.stdout?.destroy();
  }
}
