import { createSocket, type Socket as UdpSocket } from "node:dgram";
import { createServer, type Server, type Socket } from "node:net";
import { tcpFrame } from "./tcp-frame.js";

/** Answers one DNS message (null: send nothing). */
export type DnsHandler = (message: Buffer, transport: "udp" | "tcp") => Promise<Buffer | null>;

/** The DNS filter's sockets: UDP and TCP on one port of the host end of the sandbox's link. */
export interface DnsListener {
  port: number;
  close(): Promise<void>;
}

/** Longest a TCP client may hold a connection without a complete query. */
const tcpIdleMs = 10_000;
/** TCP clients at once; DNS over TCP is the rare fallback for long answers. */
const maxTcpConnections = 64;
/** Queries one TCP connection may have in flight; more are read only as answers go out. */
const tcpPipeline = 16;

/**
 * Listens on `address` (a kernel-chosen port unless one is given; the host-side table redirects
 * the sandbox's port 53 to it) for UDP and TCP DNS. Retries when the UDP port is taken for TCP.
 */
export async function listenDns(address: string, handle: DnsHandler, port = 0): Promise<DnsListener> {
  for (let attempt = 0; ; attempt++) {
    const udp = await bindUdp(address, port, handle);
    const chosen = udp.address().port;
    try {
      const tcp = await bindTcp(address, chosen, handle);
      return {
        port: chosen,
        close: () =>
          new Promise<void>((resolve) => {
            udp.close();
            tcp.close(() => resolve());
          }),
      };
    } catch (error) {
      udp.close();
      if (port !== 0 || attempt >= 5) throw error;
    }
  }
}

function bindUdp(address: string, port: number, handle: DnsHandler): Promise<UdpSocket> {
  const socket = createSocket("udp4");
  socket.on("message", (message, from) => {
    handle(message, "udp").then(
      (answer) => {
        if (answer !== null) socket.send(answer, from.port, from.address);
      },
      () => undefined,
    );
  });
  return new Promise((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(port, address, () => {
      socket.off("error", reject);
      socket.on("error", () => undefined); // e.g. ICMP errors for answers to a closed port
      resolve(socket);
    });
  });
}

function bindTcp(address: string, port: number, handle: DnsHandler): Promise<Server> {
  const server = createServer((socket) => serveTcp(socket, handle));
  server.maxConnections = maxTcpConnections;
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, address, () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}

/** RFC 7766 framing: each message is preceded by its 2-byte length; answers go out in any order. */
function serveTcp(socket: Socket, handle: DnsHandler): void {
  let buffered = Buffer.alloc(0);
  let inFlight = 0;
  socket.setTimeout(tcpIdleMs, () => socket.destroy());
  socket.on("error", () => socket.destroy());
  socket.on("data", (chunk) => {
    buffered = Buffer.concat([buffered, chunk]);
    while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
      const message = buffered.subarray(2, 2 + buffered.readUInt16BE(0));
      buffered = buffered.subarray(2 + message.length);
      inFlight++;
      if (inFlight >= tcpPipeline) socket.pause();
      handle(message, "tcp").then(
        (answer) => {
          inFlight--;
          socket.resume();
          if (answer === null || socket.destroyed) return;
          socket.write(tcpFrame(answer));
        },
        () => socket.destroy(),
      );
    }
    if (buffered.length > 2 + 65535) socket.destroy();
  });
}
