// Sends raw bytes to a name's port from inside a sandbox (copied into its workspace by the
// escape tests) and prints one JSON line: everything the far end sent back, or the error.
// The name is resolved first, through the sandbox's DNS filter, so its address is admitted.
//   node raw-http-probe.mjs NAME PORT BASE64-BYTES
import { connect } from "node:net";
import { lookup } from "node:dns/promises";

const [name, port, payload] = process.argv.slice(2);
const print = (result) => {
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
};
const { address } = await lookup(name, { family: 4 });
const socket = connect({ host: address, port: Number(port), timeout: 5000 });
let reply = "";
socket.on("connect", () => socket.write(Buffer.from(payload, "base64")));
socket.on("data", (chunk) => (reply += chunk.toString("latin1")));
socket.on("end", () => print({ reply }));
socket.on("timeout", () => print({ error: "TIMEOUT" }));
socket.on("error", (error) => print({ error: error.code ?? error.message }));
