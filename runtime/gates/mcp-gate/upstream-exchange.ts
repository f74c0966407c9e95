import { Agent as HttpAgent, request as httpRequest } from "node:http";
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { StringDecoder } from "node:string_decoder";
import type { KeyRedactor } from "../shared/key-redactor.js";
import type { McpHttpRoute } from "./mcp-route.js";
import { readBounded } from "./bounded-read.js";
import { maxAnswerBytes, passServerMessage } from "./server-messages.js";
import { formatSseEvent, SseReader } from "./sse-events.js";

/** The transport's own request headers: the only ones of the sandbox's that reach the server. */
const fromSandbox = ["accept", "mcp-session-id", "mcp-protocol-version", "last-event-id"];

/** The transport's own answer headers: the only ones of the server's that reach the sandbox (never a cookie). */
const toSandbox = ["content-type", "mcp-session-id", "cache-control"];

/** A server that sends nothing for this long is given up on (a tool may work for minutes). */
const idleMs = 10 * 60_000;

const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

/** What the relay reports back: the answer's status, or why it failed. */
export interface Relayed {
  status: number;
  hidden: number;
  redacted: number;
  failure?: string;
}

/**
 * Sends one message (or a GET or DELETE) to the server with the gate's headers, and relays its
 * answer: a JSON body read whole, an event stream event by event as it comes, each message through
 * passServerMessage (denied tools out of lists, the token masked); anything else (a 202, an error
 * page) masked as text. The sandbox leaving ends the request; a server failure ends the answer.
 */
export function exchangeUpstream(
  server: McpHttpRoute,
  method: string,
  headers: IncomingHttpHeaders,
  body: string | undefined,
  res: ServerResponse,
  redactor: KeyRedactor,
): Promise<Relayed> {
  return new Promise((resolve) => {
    const sent: OutgoingHttpHeaders = {};
    for (const name of fromSandbox) if (headers[name] !== undefined) sent[name] = headers[name];
    Object.assign(sent, server.headers);
    // The body is the gate's own serialization: its type is the gate's too (a charset the sandbox
    // named could make the server read other JSON than the gate judged).
    if (body !== undefined)
      Object.assign(sent, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    const secure = server.url.protocol === "https:";
    const outgoing = (secure ? httpsRequest : httpRequest)(server.url, {
      method,
      headers: sent,
      agent: secure ? agents.https : agents.http,
    });
    const fail = (failure: string): void => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" }).end(`forage: ${failure}\n`);
      else res.destroy();
      resolve({ status: 502, hidden: 0, redacted: 0, failure });
    };
    outgoing.setTimeout(idleMs, () => outgoing.destroy(new Error(`no answer for ${idleMs / 1000} s`)));
    outgoing.on("error", (error) => fail(`the MCP server ${server.name} could not be reached: ${error.message}`));
    outgoing.on("response", (answer) => void relayAnswer(server, answer, res, redactor).then(resolve, fail));
    res.once("close", () => outgoing.destroy());
    outgoing.end(body);
  });
}

async function relayAnswer(
  server: McpHttpRoute,
  answer: IncomingMessage,
  res: ServerResponse,
  redactor: KeyRedactor,
): Promise<Relayed> {
  const status = answer.statusCode ?? 502;
  const shown: OutgoingHttpHeaders = {};
  for (const name of toSandbox) if (answer.headers[name] !== undefined) shown[name] = answer.headers[name];
  if (
    String(answer.headers["content-type"] ?? "")
      .toLowerCase()
      .startsWith("text/event-stream")
  )
    return relayStream(server, answer, status, shown, res, redactor);
  const text = await readBounded(answer, maxAnswerBytes, "the MCP server's answer", (body) => body.destroy());
  const passed = passServerMessage(text, server.policy, redactor);
  res.writeHead(status, { ...shown, "content-length": Buffer.byteLength(passed.text) }).end(passed.text);
  return { status, hidden: passed.hidden, redacted: passed.redacted };
}

/** An event stream relayed event by event: each event's data is one JSON-RPC message (MCP's transport). */
function relayStream(
  server: McpHttpRoute,
  answer: IncomingMessage,
  status: number,
  headers: OutgoingHttpHeaders,
  res: ServerResponse,
  redactor: KeyRedactor,
): Promise<Relayed> {
  const relayed: Relayed = { status, hidden: 0, redacted: 0 };
  const reader = new SseReader(maxAnswerBytes);
  const decoder = new StringDecoder("utf8");
  res.writeHead(status, headers);
  res.flushHeaders();
  return new Promise((resolve, reject) => {
    answer.on("data", (chunk: Buffer) => {
      let events;
      try {
        events = reader.push(decoder.write(chunk));
      } catch (error) {
        answer.destroy();
        return reject(error instanceof Error ? error.message : String(error));
      }
      for (const event of events) {
        const passed = event.data === "" ? undefined : passServerMessage(event.data, server.policy, redactor);
        relayed.hidden += passed?.hidden ?? 0;
        relayed.redacted += passed?.redacted ?? 0;
        // A sandbox that does not read holds the server back, not the gate's memory.
        const written = res.write(formatSseEvent(passed === undefined ? event : { ...event, data: passed.text }));
        if (!written && !answer.isPaused()) {
          answer.pause();
          res.once("drain", () => answer.resume());
        }
      }
    });
    answer.once("end", () => {
      res.end();
      resolve(relayed);
    });
    answer.once("error", (error) => reject(`the MCP server ${server.name}'s stream broke: ${error.message}`));
  });
}
