import { createServer } from "node:net";
import { connect as connectTls } from "node:tls";
import { describe, expect, it } from "vitest";
import { readClientHello, readHttpHost } from "../../../../runtime/gates/network/sni/first-bytes.js";

/** The first bytes a real TLS client (node's OpenSSL) sends, caught by a plain TCP server on loopback. */
async function realClientHello(servername: string | undefined): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => {
      socket.once("data", (data) => {
        resolve(data);
        socket.destroy();
        server.close();
      });
    });
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      const client = connectTls({
        host: "127.0.0.1",
        port,
        ...(servername === undefined ? {} : { servername }),
        rejectUnauthorized: false,
      });
      client.on("error", () => undefined);
    });
    server.on("error", reject);
  });
}

describe("the name a connection is for", () => {
  it("reads the SNI of a real ClientHello, in lower case", async () => {
    expect(readClientHello(await realClientHello("API.Example.test"))).toEqual({
      kind: "name",
      name: "api.example.test",
    });
  });

  it("asks for more bytes until the record is complete", async () => {
    const hello = await realClientHello("api.example.test");
    expect(readClientHello(hello.subarray(0, 3))).toEqual({ kind: "need-more" });
    expect(readClientHello(hello.subarray(0, hello.length - 1))).toEqual({ kind: "need-more" });
  });

  it("refuses a ClientHello without SNI, and bytes that are not TLS", async () => {
    expect(readClientHello(await realClientHello(undefined))).toEqual({ kind: "refuse", reason: "no SNI" });
    expect(readClientHello(Buffer.from("GET / HTTP/1.1\r\n"))).toEqual({ kind: "refuse", reason: "not TLS" });
  });

  it("refuses a ClientHello whose lengths run past its record instead of reading beyond it", async () => {
    const hello = Buffer.from(await realClientHello("api.example.test"));
    const sessionIdLength = hello.readUInt8(43); // record 5 + handshake 4 + version 2 + random 32
    hello.writeUInt16BE(0xfff0, 44 + sessionIdLength); // cipher suites "longer" than the record
    expect(readClientHello(hello)).toEqual({ kind: "refuse", reason: "malformed ClientHello" });
    const split = Buffer.from(await realClientHello("api.example.test")).subarray(0, 60);
    split.writeUInt16BE(55, 3); // a first record holding only part of the handshake
    expect(readClientHello(split)).toEqual({ kind: "refuse", reason: "ClientHello split over records" });
  });

  it("reads the Host header of an HTTP/1 request head, without its port", () => {
    expect(readHttpHost(Buffer.from("GET /x HTTP/1.1\r\nUser-Agent: t\r\nHost: Api.Example.test:80\r\n\r\n"))).toEqual({
      kind: "name",
      name: "api.example.test",
    });
    expect(readHttpHost(Buffer.from("GET /x HTTP/1.1\r\nHost: a.test\r\n"))).toEqual({ kind: "need-more" });
  });

  it("refuses HTTP without exactly one Host that is a host name", () => {
    expect(readHttpHost(Buffer.from("GET / HTTP/1.1\r\n\r\n"))).toEqual({ kind: "refuse", reason: "no Host header" });
    expect(readHttpHost(Buffer.from("GET / HTTP/1.1\r\nHost: a.test\r\nHost: b.test\r\n\r\n"))).toEqual({
      kind: "refuse",
      reason: "several Host headers",
    });
    expect(readHttpHost(Buffer.from("GET / HTTP/1.1\r\nHost: a b\r\n\r\n"))).toEqual({
      kind: "refuse",
      reason: "Host is not a host name",
    });
    expect(readHttpHost(Buffer.from("SSH-2.0-OpenSSH\r\n\r\n"))).toEqual({ kind: "refuse", reason: "not HTTP/1" });
  });

  it("refuses the request heads that passed a Host-only check: absolute-form, `Host :`, folding", () => {
    const attacks = [
      "GET http://other.example/ HTTP/1.1\r\nHost: api.example.test\r\n\r\n",
      "GET / HTTP/1.1\r\nHost: api.example.test\r\nHost : other.example\r\n\r\n",
      "GET / HTTP/1.1\r\nHost: api.example.test\r\nX-A: 1\r\n Host: other.example\r\n\r\n",
    ];
    for (const attack of attacks) expect(readHttpHost(Buffer.from(attack)).kind).toBe("refuse");
    // Control: the same request, well-formed, is read for its Host.
    expect(
      readHttpHost(Buffer.from("GET http://api.example.test/ HTTP/1.1\r\nHost: api.example.test\r\nX-A: 1\r\n\r\n")),
    ).toEqual({ kind: "name", name: "api.example.test" });
  });
});
