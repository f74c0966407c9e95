// Load generator for the network benchmark, run inside a sandbox's network namespace
// (ip netns exec f<N> node network-client.mjs …). Prints one JSON line.
//   throughput ADDRESS PORT MEGABYTES   send MEGABYTES to a sink, wait for its byte count
//   connect ADDRESS PORT COUNT          COUNT sequential connections (connect, read to end)
//   turns ADDRESS PORT                  per line "N" read: N sequential connections, timed
//   dns SERVER[,SERVER2] NAME COUNT     COUNT sequential A queries (per server, alternating);
//                                       median, p90 and p99 in ms ("%d" in NAME: the query's
//                                       number, a new name each time)
import { connect } from "node:net";
import { createSocket } from "node:dgram";
import { performance } from "node:perf_hooks";
import dnsPacket from "dns-packet";

const [command, a, b, c] = process.argv.slice(2);
const done = (result) => process.stdout.write(`${JSON.stringify(result)}\n`);

if (command === "throughput") {
  const total = Number(c) * 1024 * 1024;
  const chunk = Buffer.alloc(256 * 1024, 7);
  const start = performance.now();
  const socket = connect({ host: a, port: Number(b) }, () => {
    let sent = 0;
    const pump = () => {
      while (sent < total) {
        sent += chunk.length;
        if (!socket.write(chunk)) return socket.once("drain", pump);
      }
      socket.end();
    };
    pump();
  });
  let reply = "";
  socket.on("data", (data) => (reply += data));
  socket.on("end", () => {
    const seconds = (performance.now() - start) / 1000;
    done({ bytes: Number(reply.trim()), mbPerSecond: Number(reply.trim()) / 1024 / 1024 / seconds });
  });
} else if (command === "connect") {
  const count = Number(c);
  const start = performance.now();
  let made = 0;
  const next = () => {
    if (made === count) return done({ connectionsPerSecond: count / ((performance.now() - start) / 1000) });
    const socket = connect({ host: a, port: Number(b) });
    socket.on("error", (error) => done({ error: error.code }));
    socket.resume();
    socket.on("end", () => {
      made++;
      next();
    });
  };
  next();
} else if (command === "turns") {
  // Connections in batches, when told: each line "N" on stdin makes N sequential connections and
  // answers the milliseconds they took. Two of these (one per sandbox) take turns, so the same
  // moments of this machine fall on both.
  let input = "";
  const batch = (count, start = performance.now(), made = 0) => {
    if (made === count) return done({ ms: performance.now() - start });
    const socket = connect({ host: a, port: Number(b) });
    socket.on("error", (error) => done({ error: error.code }));
    socket.resume();
    socket.on("end", () => batch(count, start, made + 1));
  };
  process.stdin.setEncoding("utf8").on("data", (chunk) => {
    const lines = (input + chunk).split("\n");
    input = lines.pop();
    for (const line of lines) batch(Number(line));
  });
} else if (command === "dns") {
  // SERVER may be "A,B": the queries then alternate between the two servers, one after the
  // other, so a pause of this machine falls on both alike; each server gets COUNT queries.
  const servers = a.split(",");
  const count = Number(c);
  const socket = createSocket("udp4");
  const samples = servers.map(() => []);
  let asked = 0;
  let id = 0;
  let sentAt = 0;
  // A lost or refused query ends the run with an error instead of waiting forever.
  let timer;
  const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
  const summary = (values) => {
    const sorted = [...values].sort((x, y) => x - y);
    return { medianMs: percentile(sorted, 0.5), p90Ms: percentile(sorted, 0.9), p99Ms: percentile(sorted, 0.99) };
  };
  const ask = () => {
    clearTimeout(timer);
    if (asked === count * servers.length) {
      socket.close();
      const [first, ...others] = samples.map(summary);
      return done({ ...first, ...Object.fromEntries(others.map((other, i) => [`server${i + 2}`, other])) });
    }
    id = (id + 1) & 0xffff;
    sentAt = performance.now();
    timer = setTimeout(() => {
      done({ error: `no answer in 5 s to query ${asked}` });
      process.exit(1);
    }, 5000);
    socket.send(
      dnsPacket.encode({
        id,
        type: "query",
        flags: dnsPacket.RECURSION_DESIRED,
        questions: [{ type: "A", name: b.replace("%d", String(Math.floor(asked / servers.length))) }],
      }),
      53,
      servers[asked % servers.length],
    );
  };
  socket.on("message", (message) => {
    if (dnsPacket.decode(message).id !== id) return;
    samples[asked % servers.length].push(performance.now() - sentAt);
    asked++;
    ask();
  });
  ask();
}
