import { generateKeyPairSync, verify } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  FrameDecoder,
  identitiesMessage,
  maxMessageBytes,
  parseIdentitiesAnswer,
  parseRequest,
  parseSignResponse,
  signResponseMessage,
} from "../../../../runtime/gates/ssh-agent/agent-messages.js";
import { parsePrivateKey } from "../../../../runtime/gates/ssh-agent/key-file.js";
import { signDestinationText } from "../../../../runtime/gates/approvals/sign-destination-text.js";
import { signDetail } from "../../../../runtime/gates/ssh-agent/sandbox-ssh-agent.js";
import { describeSignData } from "../../../../runtime/gates/ssh-agent/sign-data.js";
import { fingerprintOf } from "../../../../runtime/gates/ssh-agent/ssh-key.js";
import { MalformedMessage, WireReader, WireWriter } from "../../../../runtime/gates/ssh-agent/wire.js";

const hex = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ""), "hex");

describe("the SSH agent protocol's codec", () => {
  it("reads REQUEST_IDENTITIES and a SIGN_REQUEST with its key blob, data and flags", () => {
    expect(parseRequest(hex("0b"))).toEqual({ type: "identities" });
    const sign = new WireWriter().byte(13).string(Buffer.from("blob")).string(Buffer.from("data")).uint32(4).bytes();
    expect(parseRequest(sign)).toEqual({
      type: "sign",
      keyBlob: Buffer.from("blob"),
      data: Buffer.from("data"),
      flags: 4,
    });
  });

  it.each([
    ["ADD_IDENTITY", 17],
    ["REMOVE_IDENTITY", 18],
    ["REMOVE_ALL_IDENTITIES", 19],
    ["ADD_ID_CONSTRAINED", 25],
    ["LOCK", 22],
    ["UNLOCK", 23],
    ["EXTENSION (session-bind@openssh.com)", 27],
  ])("marks %s as a request it refuses", (_, code) => {
    expect(parseRequest(Buffer.from([code, 0, 0, 0, 0]))).toEqual({ type: "refused", code });
  });

  it.each([
    ["an empty message", ""],
    ["REQUEST_IDENTITIES with a body", "0b00"],
    ["a SIGN_REQUEST whose key blob runs past the end", "0d000003e8aabb"],
    ["a SIGN_REQUEST without flags", "0d00000001aa00000001bb"],
    ["a SIGN_REQUEST with bytes after its flags", "0d00000001aa00000001bb00000000ff"],
  ])("throws MalformedMessage for %s", (_, body) => {
    expect(() => parseRequest(hex(body))).toThrow(MalformedMessage);
  });

  it("splits a stream into messages across chunks, and refuses a length of 0 or over 256 KiB before buffering it", () => {
    const decoder = new FrameDecoder();
    expect(decoder.push(hex("00000001 0b 000000"))).toEqual([hex("0b")]);
    expect(decoder.push(hex("01 0b 00000001"))).toEqual([hex("0b")]);
    expect(decoder.buffered).toBe(4);
    const over = Buffer.alloc(4);
    over.writeUInt32BE(maxMessageBytes + 1);
    expect(() => new FrameDecoder().push(over)).toThrow(/at most 262144/);
    expect(() => new FrameDecoder().push(hex("00000000"))).toThrow(MalformedMessage);
  });

  it("writes IDENTITIES_ANSWER and SIGN_RESPONSE framed, and reads them back (as from the user's agent)", () => {
    const keys = [{ blob: Buffer.from("k1"), comment: "a@b" }];
    const answer = identitiesMessage(keys);
    expect(answer.toString("hex")).toBe("00000012" + "0c" + "00000001" + "000000026b31" + "00000003614062");
    expect(parseIdentitiesAnswer(answer.subarray(4))).toEqual(keys);
    expect(parseSignResponse(signResponseMessage(Buffer.from("sig")).subarray(4))).toEqual(Buffer.from("sig"));
    expect(parseSignResponse(hex("05"))).toBeNull();
  });

  it("writes mpints without needless zeros and with one before a set top bit", () => {
    const bytes = new WireWriter().mpint(hex("0080")).mpint(hex("7f")).mpint(hex("")).bytes();
    expect(bytes.toString("hex")).toBe("000000020080" + "000000017f" + "00000000");
    expect(() => new WireReader(hex("00000002")).string()).toThrow(MalformedMessage);
  });
});

describe("what the sign request's data shows the human", () => {
  const login = (method: string, extra: Buffer[] = []) => {
    const writer = new WireWriter()
      .string(Buffer.alloc(32, 7))
      .byte(50)
      .string("alice")
      .string("ssh-connection")
      .string(method)
      .byte(1)
      .string("ssh-ed25519")
      .string(Buffer.from("key"));
    for (const part of extra) writer.string(part);
    return writer.bytes();
  };

  it("reads the user of a login", () => {
    expect(describeSignData(login("publickey"))).toEqual({ kind: "ssh-login", user: "alice" });
  });

  it("reads the server's host key of an OpenSSH host-bound login, as its fingerprint", () => {
    const hostKey = Buffer.from("hostkey-blob");
    expect(describeSignData(login("publickey-hostbound-v00@openssh.com", [hostKey]))).toEqual({
      kind: "ssh-login",
      user: "alice",
      hostKey: fingerprintOf(hostKey),
    });
  });

  it("reads an SSHSIG signature's namespace (git commit signing) and hash", () => {
    const data = Buffer.concat([
      Buffer.from("SSHSIG"),
      new WireWriter().string("git").string("").string("sha512").string(Buffer.alloc(64)).bytes(),
    ]);
    expect(describeSignData(data)).toEqual({ kind: "sshsig", namespace: "git", hash: "sha512" });
  });

  it("keeps a user name in the shape of forage's words as data: shown quoted, it cannot pass for the host key", () => {
    const user = `git to a server with host key ${fingerprintOf(Buffer.from("the real one"))} (`;
    const data = new WireWriter()
      .string(Buffer.alloc(32, 7))
      .byte(50)
      .string(user)
      .string("ssh-connection")
      .string("publickey")
      .byte(1)
      .string("ssh-ed25519")
      .string(Buffer.from("key"))
      .bytes();
    const destination = describeSignData(data);
    expect(destination).toEqual({ kind: "ssh-login", user });
    expect(destination === undefined ? "" : signDestinationText(destination)).toBe(`ssh login as "${user}"`);
  });

  it("writes a signature's audit line with the sandbox's text quoted and escaped", () => {
    const destination = { kind: "ssh-login" as const, user: 'git\u202e" for ssh login as "root' };
    expect(
      signDetail({ fingerprint: "SHA256:k", comment: "me\u200b", destination, signed: true, reason: "once" }),
    ).toBe('signed with SHA256:k (me\\u200b) for ssh login as "git\\u202e\\" for ssh login as \\"root": once');
  });

  it("shows nothing for data it cannot read, or a user name with control characters", () => {
    expect(describeSignData(Buffer.from("random bytes"))).toBeUndefined();
    const sneaky = new WireWriter()
      .string(Buffer.alloc(32))
      .byte(50)
      .string("root\u001b[2J")
      .string("ssh-connection")
      .string("publickey")
      .byte(1)
      .string("a")
      .string("k")
      .bytes();
    expect(describeSignData(sneaky)).toBeUndefined();
  });
});

describe("private keys in PEM (node:crypto reads them)", () => {
  it("reads an unencrypted PKCS#8 Ed25519 key, whose signatures verify with its public key", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    const key = parsePrivateKey(privateKey.export({ format: "pem", type: "pkcs8" }).toString(), "/home/u/key.pem");
    expect(key.comment).toBe("/home/u/key.pem");
    const signature = new WireReader((await key.sign(Buffer.from("hello"), 0)) ?? Buffer.alloc(0));
    expect(signature.string().toString()).toBe("ssh-ed25519");
    expect(verify(null, Buffer.from("hello"), publicKey, signature.string())).toBe(true);
  });

  it("signs with rsa-sha2-512 or rsa-sha2-256 as the flags ask, ssh-rsa without", async () => {
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const key = parsePrivateKey(privateKey.export({ format: "pem", type: "pkcs1" }).toString(), "rsa.pem");
    const algorithm = async (flags: number) =>
      new WireReader((await key.sign(Buffer.from("x"), flags)) ?? Buffer.alloc(0)).string().toString();
    expect([await algorithm(4), await algorithm(2), await algorithm(0)]).toEqual([
      "rsa-sha2-512",
      "rsa-sha2-256",
      "ssh-rsa",
    ]);
  });

  it("refuses an encrypted PEM key, naming the way through the user's own agent", () => {
    const { privateKey } = generateKeyPairSync("ed25519");
    const pem = privateKey.export({ format: "pem", type: "pkcs8", cipher: "aes-256-cbc", passphrase: "pw" }).toString();
    expect(() => parsePrivateKey(pem, "k")).toThrow(/protected by a passphrase: add it to your own agent/);
  });
});
