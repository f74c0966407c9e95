// Runs inside a sandbox as an agent would: sends one request to the API proxy at the URL in the
// environment variable named by argv[2], with the header in argv[4] ("name=value", "{env:VAR}"
// replaced by that variable), then prints {status, body} as JSON. Extra "name=value" headers follow.
import { request } from "node:http";

const [, , baseVariable, path, ...headerSpecs] = process.argv;
const base = process.env[baseVariable];
if (base === undefined) {
  console.log(JSON.stringify({ error: `${baseVariable} is not set` }));
  process.exit(0);
}
const headers = {};
for (const spec of headerSpecs) {
  const [name, ...rest] = spec.split("=");
  headers[name] = rest.join("=").replace(/\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, variable) => process.env[variable] ?? "");
}
const url = new URL(`${base}${path}`);
const req = request({ host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, method: "POST", headers, timeout: 5000 }, (res) => {
  let body = "";
  res.on("data", (chunk) => (body += chunk));
  res.on("end", () => console.log(JSON.stringify({ status: res.statusCode, body })));
});
req.on("timeout", () => req.destroy(new Error("timeout")));
req.on("error", (error) => console.log(JSON.stringify({ error: error.message })));
req.end("{}");
