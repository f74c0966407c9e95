import { BlockList, connect, createServer, isIP, type Server, type Socket } from "node:net";
import { networkInterfaces } from "node:os";
import { isHostName } from "../dns/dns-message.js";
import { resolveAddresses } from "../dns/dns-filter.js";
import type { UpstreamResolver } from "../dns/upstream.js";
import { nameVerdict, type NetworkPolicy } from "../network-policy.js";
import { maxFirstBytes, readClientHello, readHttpHost, type FirstBytes } from "./first-bytes.js";

/** The sandbox's TCP 443 and 80, redirected here by its host-side table when `sni` is on. */
export interface NameGate {
  tlsPort: number;
  httpPort: number;
  close(): void;
}

export interface NameGateDeps {
  policy: () => NetworkPolicy;
  upstream: UpstreamResolver;
  refused: (refusal: { name?: string; port: number; rule: string }) => void;
  /** Address ranges of the sandboxes themselves (the gate never connects into them). */
  sandboxRanges: { v4: string; v6: string };
}

/** Connections through the gate at once, per port and family (a browser-like client opens dozens). */
const maxGatedConnections = 512;
/** How long a client may take to send its ClientHello or request head. */
const firstBytesTimeoutMs = 10_000;

/**
 * The stricter level of restricted mode: reads the name a connection is for (TLS SNI, HTTP Host),
 * refuses it unless the policy allows it on that port (so a name not on the allowlist is refused
 * even on an address an allowed name shares, as on CDNs), then connects to that name itself,
 * resolved upstream, and splices the bytes (TLS is not terminated). Connections without a name
 * are refused. Refusals are TCP resets.
 */
export async function listenNameGate(addresses: { v4: string; v6: string }, deps: NameGateDeps): Promise<NameGate> {
  const servers: Server[] = [];
  const listen = async (originalPort: number, read: (data: Buffer) => FirstBytes): Promise<number> => {
    const handler = (socket: Socket): void => gate(socket, originalPort, read, deps);
    const server = (): Server => Object.assign(createServer(handler), { maxConnections: maxGatedConnections });
    const v4 = await listenOn(server(), addresses.v4, 0);
    servers.push(v4.server);
    servers.push((await listenOn(server(), addresses.v6, v4.port)).server);
    return v4.port;
  };
  const tlsPort = await listen(443, readClientHello);
  const httpPort = await listen(80, readHttpHost);
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

function gate(client: Socket, port: number, read: (data: Buffer) => FirstBytes, deps: NameGateDeps): void {
  let buffered = Buffer.alloc(0);
  const refuse = (rule: string, name?: string): void => {
    deps.refused({ ...(name === undefined ? {} : { name }), port, rule });
    client.resetAndDestroy();
  };
  client.setTimeout(firstBytesTimeoutMs, () => refuse("no name sent in time"));
  client.on("error", () => client.destroy());
  const onData = (chunk: Buffer): void => {
    buffered = Buffer.concat([buffered, chunk]);
    const first = read(buffered.subarray(0, maxFirstBytes));
    if (first.kind === "need-more") return;
    client.off("data", onData);
    client.pause();
    client.setTimeout(0);
    if (first.kind === "refuse") return refuse(first.reason);
    if (!isHostName(first.name)) return refuse("not a host name");
    const verdict = nameVerdict(deps.policy(), first.name);
    if (!verdict.allowed) return refuse(verdict.rule, first.name);
    if (verdict.ports !== null && !verdict.ports.includes(port)) return refuse(`port ${port} not in allow for ${first.name}`, first.name);
    void splice(client, first.name, port, buffered, deps).catch((error: Error) => refuse(error.message, first.name));
  };
  client.on("data", onData);
}

async function splice(client: Socket, name: string, port: number, head: Buffer, deps: NameGateDeps): Promise<void> {
  const forbidden = forbiddenDestinations(deps.sandboxRanges);
  const address = (await resolveAddresses(deps.upstream, name)).find((candidate) => !forbidden.check(candidate, isIP(candidate) === 6 ? "ipv6" : "ipv4"));
  if (address === undefined) throw new Error(`${name} resolves to no address the sandbox may reach`);
  const server = connect({ host: address, port });
  await new Promise<void>((resolve, reject) => {
    server.once("connect", resolve);
    server.once("error", reject);
  });
  server.on("error", () => client.destroy());
  client.on("error", () => server.destroy());
  server.write(head);
  client.pipe(server);
  server.pipe(client);
  client.resume();
}

/**
 * Where the gate never connects for a sandbox, whatever a name resolves to: the host itself
 * (loopback, its own addresses), link-local and multicast, and the sandboxes' own ranges. The
 * gate connects from the host, outside the sandbox's table, so it checks this itself.
 */
function forbiddenDestinations(sandboxRanges: { v4: string; v6: string }): BlockList {
  const list = new BlockList();
  list.addSubnet("0.0.0.0", 8, "ipv4");
  list.addSubnet("127.0.0.0", 8, "ipv4");
  list.addSubnet("169.254.0.0", 16, "ipv4");
  list.addSubnet("224.0.0.0", 3, "ipv4");
  list.addSubnet("::", 127, "ipv6");
  list.addSubnet("fe80::", 10, "ipv6");
  list.addSubnet("ff00::", 8, "ipv6");
  list.addSubnet(sandboxRanges.v4, 16, "ipv4");
  list.addSubnet(sandboxRanges.v6, 32, "ipv6");
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) list.addAddress(entry.address.split("%")[0] ?? entry.address, entry.family === "IPv6" ? "ipv6" : "ipv4");
  }
  return list;
}
