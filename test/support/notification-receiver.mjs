// A notification server for tests: it stands in for a desktop's (GNOME Shell, dunst, …), which
// needs a display this machine has not. On the session bus at the socket path it is given, it
// owns org.freedesktop.Notifications and answers as the Desktop Notifications Specification
// (1.2) says a server does: GetServerInformation, GetCapabilities ("body", "body-markup": it
// says it renders markup, as GNOME Shell does, so a client must escape what is not markup),
// Notify (a fresh id) and CloseNotification. It prints "ready" once it owns the name, then one
// JSON line per Notify: { appName, replacesId, icon, summary, body, actions, hints, expireTimeout }.
// Run it as the bus's user: a session bus admits only the uid that started it.
// Usage: node notification-receiver.mjs BUS_SOCKET_PATH
import { connect } from "node:net";
import { decodeMessage, encodeMessage, messageLength, messageType } from "./dbus-wire.mjs";

const socketPath = process.argv[2];
const bus = { destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus" };
const notifications = "org.freedesktop.Notifications";
let serial = 0;
let nextNotificationId = 1;
const replies = new Map();

const socket = connect(socketPath);
socket.on("error", (error) => {
  process.stderr.write(`notification receiver: ${error.message}\n`);
  process.exit(1);
});
socket.on("close", () => process.exit(0));

/** Sends a message; for a method call, resolves with its reply's body (rejects with an error reply's name). */
function send(message) {
  const sent = { ...message, serial: ++serial };
  socket.write(encodeMessage(sent));
  if (message.type !== messageType.methodCall) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => replies.set(sent.serial, { resolve, reject }));
}

const reply = (call, signature = "", body = []) =>
  send({
    type: messageType.methodReturn,
    fields: { replySerial: call.serial, destination: call.fields.sender },
    signature,
    body,
  });

/** What the server answers each method of the Notifications interface. */
function answer(call) {
  const [appName, replacesId, icon, summary, body, actions, hints, expireTimeout] = call.body;
  // Calls to another interface get UnknownMethod.
  switch (call.fields.interface === notifications ? call.fields.member : undefined) {
    case "GetServerInformation":
      return reply(call, "ssss", ["forage-test-notifications", "forage", "1", "1.2"]);
    case "GetCapabilities":
      return reply(call, "as", [["body", "body-markup"]]);
    case "Notify": {
      const received = {
        appName,
        replacesId,
        icon,
        summary,
        body,
        actions,
        hints: Object.fromEntries(hints.map(([name, variant]) => [name, variant.value])),
        expireTimeout,
      };
      // Printed before the reply: by the time notify-send exits, the line is in the pipe.
      process.stdout.write(`${JSON.stringify(received)}\n`);
      return reply(call, "u", [nextNotificationId++]);
    }
    case "CloseNotification":
      return reply(call);
    default:
      return send({
        type: messageType.error,
        fields: {
          replySerial: call.serial,
          destination: call.fields.sender,
          errorName: "org.freedesktop.DBus.Error.UnknownMethod",
        },
      });
  }
}

function dispatch(message) {
  if (message.type === messageType.methodReturn || message.type === messageType.error) {
    const waiting = replies.get(message.fields.replySerial);
    replies.delete(message.fields.replySerial);
    if (message.type === messageType.error)
      waiting?.reject(new Error(`${message.fields.errorName}: ${String(message.body[0] ?? "")}`));
    else waiting?.resolve(message.body);
  } else if (message.type === messageType.methodCall && (message.flags & 1) === 0) {
    // Flag 1: NO_REPLY_EXPECTED.
    void answer(message);
  }
}

/** SASL first (EXTERNAL: the kernel tells the bus our uid), then messages. */
let buffered = Buffer.alloc(0);
let authenticated = false;
socket.on("data", (chunk) => {
  buffered = Buffer.concat([buffered, chunk]);
  if (!authenticated) {
    const end = buffered.indexOf("\r\n");
    if (end < 0) return;
    const line = buffered.toString("ascii", 0, end);
    buffered = buffered.subarray(end + 2);
    if (!line.startsWith("OK ")) throw new Error(`the bus refused authentication: ${line}`);
    authenticated = true;
    socket.write("BEGIN\r\n");
    void start();
  }
  for (let length = messageLength(buffered); length !== undefined; length = messageLength(buffered)) {
    const message = decodeMessage(buffered.subarray(0, length));
    buffered = buffered.subarray(length);
    dispatch(message);
  }
});
socket.on("connect", () =>
  socket.write(`\0AUTH EXTERNAL ${Buffer.from(String(process.getuid())).toString("hex")}\r\n`),
);

async function start() {
  await send({ type: messageType.methodCall, fields: { ...bus, member: "Hello" } });
  // Flag 4: DO_NOT_QUEUE. 1: we are the primary owner.
  const [owned] = await send({
    type: messageType.methodCall,
    fields: { ...bus, member: "RequestName" },
    signature: "su",
    body: [notifications, 4],
  });
  if (owned !== 1) throw new Error(`could not own ${notifications} (RequestName answered ${owned})`);
  process.stdout.write("ready\n");
}
