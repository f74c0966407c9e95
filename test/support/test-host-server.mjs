// Servers of a test host, run inside a network namespace the test made (ip netns exec NS node …):
// - an authoritative DNS server (UDP and TCP, port 53 on every address given) answering from
//   a zone file re-read on every query, so a test can rotate addresses, and logging every name
//   asked to a file, so a test can show a refused name never reached it;
// - TCP echo servers (ports given) answering "hello <local address> <port>";
// - a TLS echo server on 443 (test certificate) answering "hello <address> 443 tls <SNI or ->";
// - a UDP echo server answering the same;
// - a sink on sinkPort that reads everything and answers with the byte count.
// Usage: node test-host-server.mjs '<json: {addresses, zoneFile, queryLog, tcpPorts, udpPort}>'
import { appendFileSync, readFileSync } from "node:fs";
import { createSocket } from "node:dgram";
import { createServer } from "node:net";
import { createServer as createTlsServer } from "node:tls";
import dnsPacket from "dns-packet";

const spec = JSON.parse(process.argv[2]);

function answer(query) {
  const zone = JSON.parse(readFileSync(spec.zoneFile, "utf8"));
  const question = query.questions[0];
  const name = question.name.toLowerCase();
  appendFileSync(spec.queryLog, `${name} ${question.type}\n`);
  const records = zone[name];
  const answers = [];
  if (records !== undefined) {
    if (records.CNAME !== undefined)
      answers.push({ type: "CNAME", name: question.name, ttl: records.ttl ?? 60, data: records.CNAME });
    for (const address of question.type === "A"
      ? (records.A ?? [])
      : question.type === "AAAA"
        ? (records.AAAA ?? [])
        : []) {
      answers.push({ type: question.type, name: question.name, ttl: records.ttl ?? 60, data: address });
    }
  }
  return dnsPacket.encode({
    id: query.id,
    type: "response",
    flags: dnsPacket.AUTHORITATIVE_ANSWER | (records === undefined ? 3 : 0),
    questions: query.questions,
    answers,
  });
}

for (const address of spec.dnsAddresses) {
  const family = address.includes(":") ? "udp6" : "udp4";
  const udp = createSocket(family);
  udp.on("message", (message, from) => udp.send(answer(dnsPacket.decode(message)), from.port, from.address));
  udp.bind(53, address);
  createServer((socket) => {
    let buffered = Buffer.alloc(0);
    socket.on("error", () => undefined);
    socket.on("data", (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length < 2 || buffered.length < 2 + buffered.readUInt16BE(0)) return;
      const reply = answer(dnsPacket.decode(buffered.subarray(2, 2 + buffered.readUInt16BE(0))));
      const length = Buffer.alloc(2);
      length.writeUInt16BE(reply.length);
      socket.end(Buffer.concat([length, reply]));
    });
  }).listen(53, address);
}

for (const address of spec.addresses) {
  for (const port of spec.tcpPorts) {
    createServer((socket) => {
      socket.on("error", () => undefined);
      socket.end(`hello ${address} ${port}\n`);
    }).listen(port, address);
  }
  const tls = createTlsServer({ key: readFileSync(spec.tlsKey), cert: readFileSync(spec.tlsCert) }, (socket) => {
    socket.on("error", () => undefined);
    socket.end(`hello ${address} 443 tls ${socket.servername || "-"}\n`);
  });
  tls.on("tlsClientError", () => undefined);
  tls.listen(443, address);
  createServer((socket) => {
    let bytes = 0;
    socket.on("error", () => undefined);
    socket.on("data", (chunk) => (bytes += chunk.length));
    socket.on("end", () => socket.end(`${bytes}\n`));
  }).listen(spec.sinkPort, address);
  const udp = createSocket(address.includes(":") ? "udp6" : "udp4");
  udp.on("message", (_message, from) => udp.send(`hello ${address} ${spec.udpPort}\n`, from.port, from.address));
  udp.bind(spec.udpPort, address);
}
setTimeout(() => process.stdout.write("ready\n"), 200);
