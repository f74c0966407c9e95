import { request } from "node:https";
import type { PostToken, TokenAnswer } from "../../logins/login-refresh.js";
import type { UpstreamAgents } from "./upstream-agents.js";

/** A token endpoint's answer is a small JSON object; anything larger is cut off and refused. */
const maxAnswerBytes = 64 * 1024;
const timeoutMs = 30_000;

/** The pool refreshes go through: never a sandbox's own (a name no sandbox can have). */
const refreshPool = "_login-refresh";

/**
 * Posts refresh requests over https through the proxy's upstream pools, so a token endpoint meets
 * the same rules as an API: public addresses only (unless in proxy.allowUpstreams), the host's
 * CAs plus proxy.caFile.
 */
export function httpsTokenPost(upstreams: UpstreamAgents): PostToken {
  return (url, contentType, body) =>
    new Promise<TokenAnswer>((resolve, reject) => {
      const target = new URL(url);
      const outgoing = request(
        {
          protocol: "https:",
          host: target.hostname,
          port: target.port || 443,
          method: "POST",
          path: `${target.pathname}${target.search}`,
          headers: {
            "content-type": contentType,
            "content-length": Buffer.byteLength(body),
            accept: "application/json",
          },
          agent: upstreams.agentFor(refreshPool, target.origin),
        },
        (answer) => {
          const chunks: Buffer[] = [];
          let size = 0;
          answer.on("data", (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxAnswerBytes)
              return void answer.destroy(new Error(`the token endpoint's answer is over ${maxAnswerBytes} bytes`));
            chunks.push(chunk);
          });
          answer.once("error", reject);
          answer.once("end", () =>
            resolve({ status: answer.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
          );
        },
      );
      outgoing.setTimeout(timeoutMs, () =>
        outgoing.destroy(new Error(`no answer from ${target.origin} for ${timeoutMs / 1000} s`)),
      );
      outgoing.once("error", reject);
      outgoing.end(body);
    });
}
