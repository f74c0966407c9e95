import { spawn } from "node:child_process";
import {
  agentMessage,
  FrameDecoder,
  frame,
  parseIdentitiesAnswer,
  parseSignResponse,
  type ListedKey,
} from "./agent-messages.js";
import { fingerprintOf, type AgentKey } from "./ssh-key.js";
import { WireWriter } from "./wire.js";

/**
 * Connects to the user's socket as the user and pipes bytes both ways. A fixed script: the socket
 * path is its argument, never part of the code.
 */
const pipeScript =
  'const s=require("node:net").connect(process.argv[1]);s.on("error",()=>process.exit(1));process.stdin.pipe(s);s.pipe(process.stdout);';

/** The user's own agent: its socket and whose it is. */
export interface UpstreamAgent {
  socket: string;
  uid: number;
  gid: number;
}

/** How long the user's agent may take for one answer (it may itself ask, e.g. ssh-add -c). */
const upstreamTimeoutMs = 120_000;

/**
 * One request to the user's own agent, answered by its one reply. The connection is made by a
 * process running as the user: the socket is wherever the user's SSH_AUTH_SOCK points, and root
 * connecting there itself could be pointed at a socket only root may reach.
 */
export async function askUpstream(agent: UpstreamAgent, body: Buffer): Promise<Buffer> {
  const asUser = process.getuid?.() === agent.uid ? {} : { uid: agent.uid, gid: agent.gid };
  const child = spawn(process.execPath, ["-e", pipeScript, agent.socket], {
    ...asUser,
    env: {},
    cwd: "/",
    stdio: ["pipe", "pipe", "ignore"],
  });
  const decoder = new FrameDecoder();
  return await new Promise<Buffer>((resolve, reject) => {
    const timer = setTimeout(
      () => finish(new Error(`the user's agent at ${agent.socket} did not answer in ${upstreamTimeoutMs / 1000} s`)),
      upstreamTimeoutMs,
    );
    const finish = (outcome: Buffer | Error): void => {
      clearTimeout(timer);
      child.kill("SIGTERM");
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    child.on("error", (error) => finish(error));
    child.on("exit", () => finish(new Error(`the user's agent at ${agent.socket} closed without an answer`)));
    child.stdout.on("data", (chunk: Buffer) => {
      try {
        const [reply] = decoder.push(chunk);
        if (reply !== undefined) finish(reply);
      } catch (error) {
        finish(error instanceof Error ? error : new Error(String(error)));
      }
    });
    child.stdin.on("error", () => undefined);
    child.stdin.write(frame(body));
  });
}

/**
 * The user's agent's keys that `fingerprints` name, each signing through that agent. A name it
 * does not hold is an error: a sandbox must not start with fewer keys than its template says.
 */
export async function upstreamKeys(agent: UpstreamAgent, fingerprints: string[]): Promise<AgentKey[]> {
  const held = parseIdentitiesAnswer(await askUpstream(agent, Buffer.from([agentMessage.requestIdentities])));
  return fingerprints.map((fingerprint) => {
    const key = held.find((each) => fingerprintOf(each.blob) === fingerprint);
    if (key === undefined) throw new Error(`the user's agent holds no key ${fingerprint} (ssh-add -l lists its keys)`);
    return relayedKey(agent, key);
  });
}

function relayedKey(agent: UpstreamAgent, key: ListedKey): AgentKey {
  return {
    blob: key.blob,
    comment: key.comment,
    fingerprint: fingerprintOf(key.blob),
    sign: async (data, flags) => {
      const request = new WireWriter()
        .byte(agentMessage.signRequest)
        .string(key.blob)
        .string(data)
        .uint32(flags)
        .bytes();
      return parseSignResponse(await askUpstream(agent, request));
    },
  };
}
