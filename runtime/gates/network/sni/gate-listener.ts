import { createServer, type Server, type Socket } from "node:net";

/** The name gate's sockets: TLS (443) and HTTP (80) ports on both ends of the sandbox's link. */
export interface GateListener {
  tlsPort: number;
  httpPort: number;
  close(): void;
}

/** Connections through the gate at once, per port and family (a browser-like client opens dozens). */
const maxGatedConnections = 512;

/**
 * Listens for the sandbox's TCP 443 and 80, which its host-side table sends here when `sni` is
 * on, on kernel-chosen ports of the link's host addresses; `handle` gets each connection with the
 * port it was meant for. Node builtins only: the guard listens before it loads the rest.
 */
export async function listenGate(
  addresses: { v4: string; v6: string },
  handle: (socket: Socket, originalPort: number) => void,
): Promise<GateListener> {
  const servers: Server[] = [];
  const listen = async (originalPort: number): Promise<number> => {
    const server = (): Server =>
      Object.assign(
        createServer((socket) => handle(socket, originalPort)),
        { maxConnections: maxGatedConnections },
      );
    const v4 = await listenOn(server(), addresses.v4, 0);
    servers.push(v4.server);
    // A host with IPv6 off has no such address: the gate then serves IPv4 only.
    const v6 = await listenOn(server(), addresses.v6, v4.port).catch(() => undefined);
    if (v6 !== undefined) servers.push(v6.server);
    return v4.port;
  };
  const tlsPort = await listen(443);
  const httpPort = await listen(80);
  return { tlsPort, httpPort, close: () => servers.forEach((server) => server.close()) };
}

function listenOn(server: Server, address: string, port: number): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, address, () => {
      const bound = server.address();
      resolve({ server, port: typeof bound === "object" && bound !== null ? bound.port : port });
    });
  });
}
