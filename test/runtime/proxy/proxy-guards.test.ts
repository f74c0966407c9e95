import { describe, expect, it } from "vitest";
import { KeyRedactor, keyForms } from "../../../runtime/proxy/key-redactor.js";
import { canonicalPath } from "../../../runtime/proxy/path-grammar.js";
import { SandboxGate } from "../../../runtime/proxy/sandbox-gate.js";

/* The proxy's guards on their own: key redaction, the path grammar, the per-sandbox gate. */
const key = "sk-test/KEY+0123456789=";

async function throughStream(redactor: KeyRedactor, text: string, size: number): Promise<{ out: string; found: number }> {
  let found = 0;
  const stream = redactor.stream((count) => (found += count));
  const chunks: Buffer[] = [];
  stream.on("data", (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise((resolve) => stream.on("end", resolve));
  for (let index = 0; index < text.length; index += size) stream.write(Buffer.from(text.slice(index, index + size), "latin1"));
  stream.end();
  await ended;
  return { out: Buffer.concat(chunks).toString("latin1"), found };
}

describe("key redaction", () => {
  it("finds the key as sent, URL-encoded, JSON-escaped and inside base64 of user:key, keeping lengths", () => {
    const text = `a ${key} b ${encodeURIComponent(key)} c ${JSON.stringify(key).replaceAll("/", "\\/")} d Basic ${Buffer.from(`user:${key}`).toString("base64")}`;
    const { text: out, count } = new KeyRedactor([key]).redact(text);
    expect(count).toBe(4);
    expect(out).toHaveLength(text.length);
    for (const form of keyForms(key)) expect(out).not.toContain(form);
  });

  it.each([1, 2, 3, 7, 64])("finds a key split across stream chunks of %i bytes", async (size) => {
    const text = `data: {"echo":"${key}"}\n\ndata: {"url":"/x?key=${encodeURIComponent(key)}"}\n\n`;
    const { out, found } = await throughStream(new KeyRedactor([key]), text, size);
    expect(found).toBe(2);
    expect(out).toHaveLength(text.length);
    expect(out).not.toContain(key);
  });

  it("holds back only a tail that could start a key: an event's end is never delayed", () => {
    const redactor = new KeyRedactor([key]);
    expect(redactor.heldBack("data: {}\n\n")).toBe(0);
    expect(redactor.heldBack("data: sk-te")).toBe(5);
  });
});

describe("the path grammar", () => {
  it.each([
    ["/v1/messages", "/v1/messages"],
    ["/v1/models/gemini-pro:streamGenerateContent", "/v1/models/gemini-pro:streamGenerateContent"],
    ["/v1/%7Euser/", "/v1/~user/"],
    ["/", "/"],
  ])("allows %s as %s", (raw, encoded) => {
    expect(canonicalPath(raw)).toMatchObject({ ok: true, encoded });
  });

  it.each(["/v1/%c0%ae", "/v1/%e0%80%ae", "/v1/%u002e", "/v1/a%00", "/v1/.", "/v1/%2E%2e", "/v1\\x", "/v1/a;b", "/v1/%252e", "/v1/%zz", "v1", "/v1/é"])("refuses %s", (raw) => {
    expect(canonicalPath(raw).ok).toBe(false);
  });
});

describe("the per-sandbox gate", () => {
  it("lets a sandbox's requests in up to its slots, queues the rest in order, and keeps sandboxes apart", () => {
    const gate = new SandboxGate(() => 2, 1);
    const started: string[] = [];
    const passes = ["a1", "a2", "a3"].map((name) => gate.enter("a", () => started.push(name)));
    expect(gate.enter("a", () => started.push("a4"))).toBeNull();
    gate.enter("b", () => started.push("b1"));
    expect(started).toEqual(["a1", "a2", "b1"]);
    passes[0]?.leave();
    expect(started).toEqual(["a1", "a2", "b1", "a3"]);
    expect(gate.inFlight("a")).toBe(2);
  });

  it("forgets a waiting request that leaves before its turn", () => {
    const gate = new SandboxGate(() => 1, 4);
    const started: string[] = [];
    const first = gate.enter("a", () => started.push("1"));
    gate.enter("a", () => started.push("2"))?.leave();
    gate.enter("a", () => started.push("3"));
    first?.leave();
    expect(started).toEqual(["1", "3"]);
  });
});
