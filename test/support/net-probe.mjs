// Network probe run inside a sandbox by the network tests (copied into its workspace; node comes
// from the host's /usr). Prints one JSON line: what was reached, or the error and how long it took.
//   resolve NAME              getaddrinfo through the sandbox's resolv.conf
//   tcp HOST PORT             connect (HOST may be a name), read the echo
//   udp ADDRESS PORT          send a datagram, wait 1 s for the echo (or the refusal)
//   dns SERVER NAME           ask SERVER (another resolver) directly
//   tls HOST PORT [SNI]       TLS handshake (SNI given, else none for an address), read the echo
//   http ADDRESS PORT HOST    send an HTTP/1.1 request head with that Host, read the echo
import { connect, isIP } from "node:net";
import { createSocket } from "node:dgram";
import { lookup, Resolver } from "node:dns/promises";
import { connect as connectTls } from "node:tls";

const [command, a, b] = process.argv.slice(2);
const started = performance.now();
const print = (result) => {
  process.stdout.write(`${JSON.stringify({ ...result, ms: Math.round(performance.now() - started) })}\n`);
  process.exit(0);
};
const failed = (error) => print({ error: error.code ?? error.message });
/** Prints what a stream socket answers up to its end, or how it failed. */
const readReply = (socket) => {
  let reply = "";
  socket.on("data", (chunk) => (reply += chunk));
  socket.on("end", () => print({ reply: reply.trim() }));
  socket.on("timeout", () => failed({ code: "TIMEOUT" }));
  socket.on("error", failed);
};

if (command === "resolve") {
  lookup(a, { all: true }).then((found) => print({ addresses: found.map((entry) => entry.address).sort() }), failed);
} else if (command === "tcp") {
  readReply(connect({ host: a, port: Number(b), timeout: 5000 }));
} else if (command === "udp") {
  const socket = createSocket(a.includes(":") ? "udp6" : "udp4");
  socket.on("message", (message) => print({ reply: message.toString().trim() }));
  socket.on("error", failed);
  setTimeout(() => failed({ code: "TIMEOUT" }), 1000);
  // Connected, so an ICMP refusal comes back as an error instead of silence.
  socket.connect(Number(b), a, () => socket.send("hi"));
} else if (command === "dns") {
  const resolver = new Resolver({ timeout: 1000, tries: 1 });
  resolver.setServers([a]);
  resolver.resolve4(b).then((addresses) => print({ addresses }), failed);
} else if (command === "tls") {
  const servername = process.argv[5] ?? (isIP(a) === 0 ? a : undefined);
  readReply(
    connectTls({
      host: a,
      port: Number(b),
      rejectUnauthorized: false,
      ...(servername === undefined ? {} : { servername }),
      timeout: 5000,
    }),
  );
} else if (command === "http") {
  const socket = connect({ host: a, port: Number(b), timeout: 5000 });
  socket.on("connect", () => socket.write(`GET / HTTP/1.1\r\nHost: ${process.argv[5]}\r\nConnection: close\r\n\r\n`));
  readReply(socket);
} else {
  process.stderr.write(`unknown probe ${command}\n`);
  process.exit(64);
}
