import dnsPacket, { type Answer, type Packet, type Question } from "dns-packet";

/** Response codes the filter sends. */
export const rcode = { noError: 0, formErr: 1, servFail: 2, nxDomain: 3, refused: 5 } as const;

const recursionDesired = 0x0100;
const recursionAvailable = 0x0080;
const truncated = 0x0200;
/** Answers over UDP without EDNS must fit in 512 bytes; longer ones say "truncated, use TCP". */
export const udpAnswerLimit = 512;

/** A query as the filter accepts it: one question, class IN, opcode QUERY. */
export interface DnsQuery {
  id: number;
  recursionDesired: boolean;
  /** The question as asked (its name's case kept for the answer). */
  question: Question;
  /** Lower case, without the trailing dot. */
  name: string;
}

/**
 * Reads a query from a sandbox: anything else (responses, updates, several questions, other
 * classes, names that are not host names) is refused. Returns null for bytes too broken to
 * answer at all.
 */
export function readQuery(message: Buffer): { query: DnsQuery } | { refuse: { id: number; reason: string } } | null {
  let packet: Packet;
  try {
    packet = dnsPacket.decode(message);
  } catch {
    return null;
  }
  const id = packet.id ?? 0;
  const flags = packet.flags ?? 0;
  if (packet.type !== "query" || ((flags >> 11) & 0xf) !== 0) return { refuse: { id, reason: "not a standard query" } };
  const questions = packet.questions ?? [];
  const question = questions[0];
  if (questions.length !== 1 || question === undefined) return { refuse: { id, reason: "not exactly one question" } };
  if ((question.class ?? "IN") !== "IN") return { refuse: { id, reason: "class other than IN" } };
  const name = question.name.toLowerCase().replace(/\.$/, "");
  if (!isHostName(name)) return { refuse: { id, reason: "not a host name" } };
  return { query: { id, recursionDesired: (flags & recursionDesired) !== 0, question, name } };
}

/** Letters, digits, '-' and '_' in labels of 1-63, at most 253 in all. */
export function isHostName(name: string): boolean {
  return (
    name.length > 0 &&
    name.length <= 253 &&
    name.split(".").every((label) => /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/.test(label))
  );
}

/**
 * The filter's answer to a query: the sandbox's question back, only the answers the filter
 * chose, no authority or additional records (nothing the upstream added passes unchecked).
 * Over UDP an answer longer than 512 bytes is sent empty with TC set, so the client retries
 * over TCP.
 */
export function answerMessage(
  query: { id: number; recursionDesired: boolean; question: Question },
  code: number,
  answers: Answer[],
  transport: "udp" | "tcp",
): Buffer {
  const flags = (query.recursionDesired ? recursionDesired : 0) | recursionAvailable | code;
  const encode = (list: Answer[], extra: number): Buffer =>
    dnsPacket.encode({
      id: query.id,
      type: "response",
      flags: flags | extra,
      questions: [query.question],
      answers: list,
    });
  const message = encode(answers, 0);
  if (transport === "udp" && message.length > udpAnswerLimit) return encode([], truncated);
  return message;
}

/** A refusal for a query whose question could not be used (it is not echoed back). */
export function refusalMessage(id: number): Buffer {
  return dnsPacket.encode({ id, type: "response", flags: recursionAvailable | rcode.refused, questions: [] });
}
