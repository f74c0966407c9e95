import { createSocket } from "node:dgram";
import { isIP, Socket } from "node:net";
import { randomInt } from "node:crypto";
import { readFile } from "node:fs/promises";
import dnsPacket, { type Packet, type RecordType } from "dns-packet";
import { SandboxError } from "../../../core/errors.js";
import { tcpFrame } from "./tcp-frame.js";

/** The resolver the DNS filter forwards allowed names to. */
export interface UpstreamResolver {
  address: string;
  port: number;
}

const attemptTimeoutMs = 2000;
const attempts = 2;
const truncatedFlag = 0x0200;

/**
 * Parses "ADDRESS", "ADDRESS:PORT" or "[IPv6]:PORT". Names are refused: resolving the
 * resolver's own name would need a resolver.
 */
export function parseUpstream(text: string): UpstreamResolver {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(text);
  const [address, port] =
    bracketed !== null
      ? [bracketed[1] ?? "", bracketed[2]]
      : isIP(text) !== 0
        ? [text, undefined]
        : (text.split(":") as [string, string | undefined]);
  const number = port === undefined ? 53 : Number(port);
  if (isIP(address) === 0 || !Number.isInteger(number) || number < 1 || number > 65535) {
    throw new SandboxError(
      `upstream resolver "${text}" must be an IP address with an optional port, e.g. "192.0.2.53" or "192.0.2.53:5353"`,
      "config",
    );
  }
  return { address, port: number };
}

/** The first `nameserver` of resolv.conf (the host's default upstream). */
export async function systemResolver(path = "/etc/resolv.conf"): Promise<UpstreamResolver> {
  const text = await readFile(path, "utf8").catch(() => "");
  for (const line of text.split("\n")) {
    const match = /^\s*nameserver\s+(\S+)/.exec(line);
    // A link-local IPv6 resolver carries a zone (%eth0), which parseUpstream refuses: skip it.
    if (match?.[1] !== undefined && isIP(match[1]) !== 0) return { address: match[1], port: 53 };
  }
  throw new SandboxError(`${path} names no nameserver: set network.upstreamResolver in the Forage config`, "config");
}

/**
 * Asks the upstream resolver one question, over UDP (with a fresh id and source port each
 * attempt), then over TCP if the answer was truncated. The answer must come from the resolver's
 * address and port and echo the id and question, or it is ignored.
 */
export async function askUpstream(upstream: UpstreamResolver, name: string, type: RecordType): Promise<Packet> {
  let lastError: Error = new Error("no attempt");
  for (let attempt = 0; attempt < attempts; attempt++) {
    try {
      const answer = await overUdp(upstream, name, type);
      return ((answer.flags ?? 0) & truncatedFlag) !== 0 ? await overTcp(upstream, name, type) : answer;
    } catch (error) {
      lastError = error as Error;
    }
  }
  throw lastError;
}

function question(id: number, name: string, type: RecordType): Buffer {
  return dnsPacket.encode({
    id,
    type: "query",
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ type, name, class: "IN" }],
  });
}

function matches(packet: Packet, id: number, name: string, type: RecordType): boolean {
  const asked = packet.questions?.[0];
  return (
    packet.type === "response" &&
    packet.id === id &&
    asked !== undefined &&
    asked.name.toLowerCase() === name &&
    asked.type === type
  );
}

/**
 * One attempt: `start` sends the question and calls `finish` with the answer or an error; the
 * attempt fails after the timeout, and `close` releases its socket however it ends.
 */
function attempt(
  close: () => void,
  timeoutMessage: string,
  start: (finish: (outcome: Packet | Error) => void) => void,
): Promise<Packet> {
  return new Promise<Packet>((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(timeoutMessage)), attemptTimeoutMs);
    const finish = (outcome: Packet | Error): void => {
      clearTimeout(timer);
      close();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    start(finish);
  });
}

function overUdp(upstream: UpstreamResolver, name: string, type: RecordType): Promise<Packet> {
  const id = randomInt(0, 65536);
  const socket = createSocket(isIP(upstream.address) === 6 ? "udp6" : "udp4");
  return attempt(
    () => socket.close(),
    `upstream resolver ${upstream.address} did not answer in ${attemptTimeoutMs} ms`,
    (finish) => {
      socket.on("error", (error) => finish(error));
      socket.on("message", (message, from) => {
        if (from.address !== upstream.address || from.port !== upstream.port) return;
        try {
          const packet = dnsPacket.decode(message);
          if (matches(packet, id, name, type)) finish(packet);
        } catch {
          // garbage: keep waiting for the real answer
        }
      });
      socket.send(question(id, name, type), upstream.port, upstream.address);
    },
  );
}

function overTcp(upstream: UpstreamResolver, name: string, type: RecordType): Promise<Packet> {
  const id = randomInt(0, 65536);
  const socket = new Socket();
  let received = Buffer.alloc(0);
  return attempt(
    () => socket.destroy(),
    `upstream resolver ${upstream.address} did not answer over TCP in ${attemptTimeoutMs} ms`,
    (finish) => {
      socket.on("error", (error) => finish(error));
      socket.on("data", (chunk) => {
        received = Buffer.concat([received, chunk]);
        if (received.length < 2 || received.length < 2 + received.readUInt16BE(0)) return;
        try {
          const packet = dnsPacket.decode(received.subarray(2, 2 + received.readUInt16BE(0)));
          finish(matches(packet, id, name, type) ? packet : new Error("upstream resolver answered another question"));
        } catch (error) {
          finish(error as Error);
        }
      });
      socket.connect(upstream.port, upstream.address, () => socket.write(tcpFrame(question(id, name, type))));
    },
  );
}
