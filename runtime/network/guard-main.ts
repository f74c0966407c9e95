/**
 * Entry point of a sandbox's network guard process (see guard.ts), started detached by
 * guard-process.ts with its spec as JSON on argv. It opens its sockets with Node's builtins
 * first and prints one ready line on stdout (its ports), so forage-ctl need not wait for the rest
 * (zod, dns-packet, nft), which loads meanwhile; queries that arrive before it has wait for it.
 * After the ready line it writes only to stderr (the sandbox's guard.log).
 */
import type { Socket } from "node:net";
import { listenDns } from "./dns/dns-listener.js";
import type { GuardHandlers } from "./guard.js";
import type { GuardSpec } from "./guard-spec.js";
import { sandboxLink } from "../../generator/policy/network/sandbox-link.js";
import { listenGate } from "./sni/gate-listener.js";

const spec = JSON.parse(process.argv[2] ?? "null") as GuardSpec | null;
if (spec === null || typeof spec.sandbox !== "string" || !Number.isInteger(spec.slot)) {
  process.stderr.write("usage: guard-main.js '<spec json>' (started by forage-ctl, not by hand)\n");
  process.exit(64);
}
const fail = (error: Error): never => {
  process.stderr.write(`forage guard ${spec.sandbox}: ${error.stack ?? error.message}\n`);
  process.exit(1);
};
// Until guard.js handles it, a SIGHUP (a policy change) must not kill the guard: count it.
let earlyHangups = 0;
const countHangup = (): void => void earlyHangups++;
process.on("SIGHUP", countHangup);
const takeEarlyHangups = (): number => {
  process.off("SIGHUP", countHangup);
  return earlyHangups;
};
const loading = import("./guard.js");
loading.catch(fail);
let serve: (handlers: GuardHandlers) => void = () => undefined;
const handlers = new Promise<GuardHandlers>((resolve) => (serve = resolve));
const link = sandboxLink(spec.slot, spec.base);
try {
  const dns = await listenDns(link.hostAddress, async (message, transport) => (await handlers).dns(message, transport));
  const gate = await listenGate({ v4: link.hostAddress, v6: link.hostAddress6 }, (socket: Socket, port: number) => {
    void handlers.then((ready) => ready.gate(socket, port));
  });
  process.stdout.write(`${JSON.stringify({ ready: true, dnsPort: dns.port, tlsPort: gate.tlsPort, httpPort: gate.httpPort })}\n`);
  await (await loading).runGuard(spec, link, { dns, gate, takeEarlyHangups }, serve);
  process.exit(0);
} catch (error) {
  fail(error as Error);
}
