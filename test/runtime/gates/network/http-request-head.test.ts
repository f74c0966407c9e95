import { describe, expect, it } from "vitest";
import { readRequestHead } from "../../../../runtime/gates/network/sni/http-request-head.js";

/*
 * The name gate's reading of plain HTTP request heads. Every refused ambiguity has a control: the
 * same request, well-formed, is read for the host it names.
 */
const read = (head: string) => readRequestHead(Buffer.from(head, "latin1"), 80);
const hostOf = (head: string) => {
  const result = read(head);
  return result.kind === "head" ? result.host : result;
};

describe("reading an HTTP/1 request head strictly", () => {
  it("reads origin-form, asterisk-form and same-host absolute-form requests for their Host", () => {
    expect(hostOf("GET /x?y HTTP/1.1\r\nHost: Api.Example.test\r\nAccept: */*\r\n\r\n")).toBe("api.example.test");
    expect(hostOf("OPTIONS * HTTP/1.1\r\nHost: api.example.test:80\r\n\r\n")).toBe("api.example.test");
    expect(hostOf("GET http://API.example.test./x HTTP/1.1\r\nHost: api.example.test\r\n\r\n")).toBe(
      "api.example.test",
    );
    expect(hostOf("GET / HTTP/1.0\r\nHost: api.example.test\r\n\r\n")).toBe("api.example.test");
  });

  it("refuses an absolute-form target naming another host than Host (the target wins upstream)", () => {
    expect(read("GET http://other.example/ HTTP/1.1\r\nHost: api.example.test\r\n\r\n")).toEqual({
      kind: "refuse",
      reason: "request target names other.example, Host names api.example.test",
    });
    expect(read("GET http://api.example.test:8080/ HTTP/1.1\r\nHost: api.example.test\r\n\r\n")).toEqual({
      kind: "refuse",
      reason: "request target: Host names port 8080, the connection is for port 80",
    });
    expect(read("GET http://x@other.example/ HTTP/1.1\r\nHost: api.example.test\r\n\r\n").kind).toBe("refuse");
    expect(read("GET https://other.example/ HTTP/1.1\r\nHost: api.example.test\r\n\r\n").kind).toBe("refuse");
    expect(read("CONNECT other.example:22 HTTP/1.1\r\nHost: api.example.test\r\n\r\n")).toEqual({
      kind: "refuse",
      reason: "CONNECT through the name gate",
    });
  });

  it("refuses whitespace between a field name and its colon (RFC 9112 §5.1)", () => {
    expect(read("GET / HTTP/1.1\r\nHost : other.example\r\n\r\n")).toEqual({
      kind: "refuse",
      reason: 'malformed header line "Host :"',
    });
    expect(read("GET / HTTP/1.1\r\nHost: api.example.test\r\nHost\t: other.example\r\n\r\n").kind).toBe("refuse");
    expect(hostOf("GET / HTTP/1.1\r\nHost: other.example\r\n\r\n")).toBe("other.example");
  });

  it("refuses obsolete line folding, bare CR or LF, and control characters", () => {
    expect(read("GET / HTTP/1.1\r\nX-A: 1\r\n Host: other.example\r\nHost: api.example.test\r\n\r\n")).toEqual({
      kind: "refuse",
      reason: "obsolete line folding",
    });
    expect(read("GET / HTTP/1.1\r\nHost: api.example.test\r\nX-A: 1\r\n\tmore\r\n\r\n")).toEqual({
      kind: "refuse",
      reason: "obsolete line folding",
    });
    expect(read("GET / HTTP/1.1\r\nHost: api.example.test\nHost: other.example\r\n\r\n")).toEqual({
      kind: "refuse",
      reason: "bare CR or LF in the request head",
    });
    expect(read("GET / HTTP/1.1\r\nHost: api.example.test\r\nX-A: a\x00b\r\n\r\n")).toEqual({
      kind: "refuse",
      reason: "control character in X-A",
    });
    expect(hostOf("GET / HTTP/1.1\r\nHost: api.example.test\r\nX-A: 1 more\r\n\r\n")).toBe("api.example.test");
  });

  it("refuses no Host, several Hosts, a Host that is no host name, and a port other than the connection's", () => {
    expect(read("GET / HTTP/1.1\r\n\r\n")).toEqual({ kind: "refuse", reason: "no Host header" });
    expect(read("GET / HTTP/1.1\r\nHost: api.example.test\r\nhost: api.example.test\r\n\r\n")).toEqual({
      kind: "refuse",
      reason: "several Host headers",
    });
    expect(read("GET / HTTP/1.1\r\nHost: [::1]\r\n\r\n")).toEqual({
      kind: "refuse",
      reason: "Host is not a host name",
    });
    expect(read("GET / HTTP/1.1\r\nHost: api.example.test:8080\r\n\r\n")).toEqual({
      kind: "refuse",
      reason: "Host names port 8080, the connection is for port 80",
    });
  });

  it("refuses ambiguous body framing, and reads the framing of the rest", () => {
    const post = "POST / HTTP/1.1\r\nHost: a.test\r\n";
    expect(read(`${post}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n`)).toEqual({
      kind: "refuse",
      reason: "Transfer-Encoding with Content-Length",
    });
    expect(read(`${post}Transfer-Encoding: gzip, chunked\r\n\r\n`).kind).toBe("refuse");
    expect(read(`${post}Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n`).kind).toBe("refuse");
    expect(read(`${post}Content-Length: 5\r\nContent-Length: 6\r\n\r\n`)).toEqual({
      kind: "refuse",
      reason: "several Content-Length headers",
    });
    expect(read(`${post}Content-Length: +5\r\n\r\n`)).toEqual({
      kind: "refuse",
      reason: "Content-Length is not a number",
    });
    expect(read("GET / HTTP/1.1\r\nHost: a.test\r\nContent-Length: 40\r\n\r\n")).toEqual({
      kind: "refuse",
      reason: "GET with a body",
    });
    expect(read(`${post}Content-Length: 5\r\n\r\n`)).toMatchObject({
      kind: "head",
      body: { kind: "length", bytes: 5 },
    });
    expect(read(`${post}Transfer-Encoding: Chunked\r\n\r\n`)).toMatchObject({
      kind: "head",
      body: { kind: "chunked" },
    });
    expect(read("GET / HTTP/1.1\r\nHost: a.test\r\nContent-Length: 0\r\n\r\n")).toMatchObject({
      kind: "head",
      body: { kind: "none" },
    });
  });

  it("refuses Upgrade (WebSocket, h2c) and HTTP/2's preface", () => {
    expect(read("GET / HTTP/1.1\r\nHost: a.test\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n")).toEqual({
      kind: "refuse",
      reason: "Upgrade through the name gate (use TLS)",
    });
    expect(read("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")).toEqual({ kind: "refuse", reason: "not HTTP/1" });
  });

  it("waits for the whole head, up to a limit", () => {
    expect(read("GET / HTTP/1.1\r\nHost: a.test\r\n")).toEqual({ kind: "need-more" });
    expect(read(`GET / HTTP/1.1\r\nX: ${"a".repeat(17_000)}`)).toEqual({
      kind: "refuse",
      reason: "request head too long",
    });
  });
});
