// Runs inside a sandbox as an agent would, to use or attack the API proxy: sends `count` concurrent
// requests (method, path appended to the URL in the variable named by argv[2]) with "name=value"
// headers; "{env:VAR}" in the path or a header is replaced by that variable, "{file:PATH}" by that
// file's text (another agent's stand-in, read as an agent can). Prints a JSON array of
// {status, headers, body, bytes (the body in base64: a compressed one is not text)}, one per
// request, or {error}.
import { readFileSync } from "node:fs";
import { Agent, request } from "node:http";

const [, , baseVariable, method, path, count, ...headerSpecs] = process.argv;
const fill = (text) =>
  text
    .replace(/\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, variable) => process.env[variable] ?? "")
    .replace(/\{file:([^}]+)\}/g, (_, file) => readFileSync(file, "utf8").trim());
const base = process.env[baseVariable];
if (base === undefined) {
  console.log(JSON.stringify({ error: `${baseVariable} is not set` }));
  process.exit(0);
}
const headers = {};
for (const spec of headerSpecs) {
  const [name, ...rest] = spec.split("=");
  headers[name] = fill(rest.join("="));
}
const url = new URL(`${base}${fill(path)}`);
const agent = new Agent({ keepAlive: false, maxSockets: 64 });
const one = () =>
  new Promise((resolve) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method,
        headers,
        agent,
        timeout: 20000,
      },
      (res) => {
        const chunks = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
            bytes: Buffer.concat(chunks).toString("base64"),
          }),
        );
      },
    );
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", (error) => resolve({ error: error.message }));
    req.end(method === "GET" ? undefined : "{}");
  });
console.log(JSON.stringify(await Promise.all(Array.from({ length: Number(count) }, one))));
