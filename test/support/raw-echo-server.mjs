// A raw echo server for the escape tests, run in a test namespace (ip netns exec NS node …):
// on port 80 of ADDRESS it sends back, once the client has been quiet for 300 ms, exactly the
// bytes it received, and appends them (one JSON string a line) to LOG when the connection
// closes, so a test sees what reached the far end even when the connection was cut.
//   node raw-echo-server.mjs ADDRESS LOG
import { appendFileSync } from "node:fs";
import { createServer } from "node:net";

const [address, log] = process.argv.slice(2);
createServer((socket) => {
  let received = Buffer.alloc(0);
  let timer;
  socket.on("error", () => undefined);
  socket.on("data", (chunk) => {
    received = Buffer.concat([received, chunk]);
    clearTimeout(timer);
    timer = setTimeout(() => socket.end(received), 300);
  });
  socket.on("close", () => {
    clearTimeout(timer);
    appendFileSync(log, `${JSON.stringify(received.toString("latin1"))}\n`);
  });
}).listen(80, address, () => process.stdout.write("ready\n"));
