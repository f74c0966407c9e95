import { createSocket } from "node:dgram";
import dnsPacket, { type Answer, type Packet } from "dns-packet";

/** A decoded answer; dns-packet's types leave out the rcode it decodes. */
export type Decoded = Packet & { rcode?: string };

/** Decodes the DNS filter's answer (null: it dropped the message, which a test does not expect). */
export function decodeAnswer(message: Buffer | null): Decoded {
  if (message === null) throw new Error("no answer");
  return dnsPacket.decode(message) as Decoded;
}

/**
 * A real upstream for the DNS filter's tests: a DNS server on loopback that answers from `zone`
 * (NXDOMAIN for a name it does not have) and logs every name it is asked, so a test can show
 * what was, or was never, forwarded.
 */
export async function startZoneUpstream(
  zone: Record<string, Answer[]>,
): Promise<{ port: number; asked: string[]; close: () => void }> {
  const asked: string[] = [];
  const socket = createSocket("udp4");
  socket.on("message", (message, from) => {
    const query = dnsPacket.decode(message);
    const question = query.questions?.[0];
    if (question === undefined) return;
    asked.push(question.name);
    const answers = zone[question.name] ?? [];
    socket.send(
      dnsPacket.encode({
        id: query.id,
        type: "response",
        flags: answers.length === 0 ? 3 : 0,
        questions: query.questions,
        answers,
      }),
      from.port,
      from.address,
    );
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  return { port: socket.address().port, asked, close: () => socket.close() };
}
