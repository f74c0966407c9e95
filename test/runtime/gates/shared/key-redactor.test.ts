import { describe, expect, it } from "vitest";
import { KeyRedactor } from "../../../../runtime/gates/shared/key-redactor.js";

/*
 * The forms of a reflected key the proxy masks, each in a text the way a careless API would echo
 * it, whole and split across the chunks of a stream; and, as controls, text that only looks like
 * escapes or holds another key, left exactly as it was.
 */
const key = "sk-Test/KEY+0123456789=abc";
const other = "sk-other-0000000000000000";

const hex = Buffer.from(key).toString("hex");
const base64At = (offset: number): string =>
  Buffer.concat([Buffer.from("x".repeat(offset)), Buffer.from(key)]).toString("base64");
const everyChar = (encode: (code: number) => string): string =>
  [...key].map((char) => encode(char.charCodeAt(0))).join("");
const pad = (code: number): string => code.toString(16).padStart(2, "0");

/** Each form as an API might echo it: [name, the echoed text]. */
const forms: [string, string][] = [
  ["as sent", key],
  ["upper-case", key.toUpperCase()],
  ["lower-case", key.toLowerCase()],
  ["hex", hex],
  ["hex upper-case", hex.toUpperCase()],
  ["base64, aligned, padded", base64At(0)],
  ["base64 after one byte", base64At(1)],
  ["base64 after two bytes, padding cut", base64At(2).replace(/=+$/, "")],
  ["base64url after one byte", base64At(1).replaceAll("+", "-").replaceAll("/", "_")],
  ["base64url after two bytes, unpadded", base64At(2).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "")],
  ["Basic base64(user:key)", `Basic ${Buffer.from(`user:${key}`).toString("base64")}`],
  ["base64 with its / JSON-escaped", base64At(0).replaceAll("/", "\\/")],
  ["base64 with + and / percent-encoded", encodeURIComponent(base64At(1))],
  ["JSON-escaped with \\/", JSON.stringify(key).replaceAll("/", "\\/")],
  ["JSON \\u-escaped, every character", everyChar((code) => `\\u${code.toString(16).padStart(4, "0")}`)],
  ["JSON \\u-escaped, upper-case hex", everyChar((code) => `\\u${code.toString(16).padStart(4, "0").toUpperCase()}`)],
  [
    "JSON \\u-escaped, quoted inside another JSON text",
    JSON.stringify(everyChar((code) => `\\u${code.toString(16).padStart(4, "0")}`)).slice(1, -1),
  ],
  [
    "JSON-escaped, quoted inside another JSON text",
    JSON.stringify(JSON.stringify(key).replaceAll("/", "\\/")).slice(3, -3),
  ],
  [
    "JSON \\u-escaped, some characters",
    key.replace(/[kT0/=]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`),
  ],
  ["URL-encoded (encodeURIComponent)", encodeURIComponent(key)],
  ["URL-encoded, every character", everyChar((code) => `%${pad(code).toUpperCase()}`)],
  ["URL-encoded twice", encodeURIComponent(encodeURIComponent(key))],
  ["URL-encoded twice, every character", everyChar((code) => `%25${pad(code)}`)],
  ["HTML decimal references", everyChar((code) => `&#${code};`)],
  ["HTML decimal references with leading zeros, no ;", everyChar((code) => `&#00${code}`)],
  ["HTML hex references", everyChar((code) => `&#x${code.toString(16)};`)],
  ["HTML hex references, upper-case", everyChar((code) => `&#X${code.toString(16).toUpperCase()};`)],
  ["HTML named references", key.replace("/", "&sol;").replace("+", "&plus;").replace("=", "&equals;")],
  ["HTML named references, upper-case", key.replace("/", "&SOL;").replace("+", "&PLUS;")],
  ["every encoding mixed", `sk%2D&#84;\\u0065st\\/KEY&plus;%2530123456789&#x3d;ABC`],
  ["hex of the URL-encoded key (as in ?key=)", Buffer.from(encodeURIComponent(key)).toString("hex")],
];

async function throughStream(
  redactor: KeyRedactor,
  text: string,
  size: number,
): Promise<{ out: string; found: number }> {
  const chunks: string[] = [];
  for (let index = 0; index < text.length; index += size) chunks.push(text.slice(index, index + size));
  return throughChunks(redactor, chunks);
}

/** The text the redactor's stream makes of `chunks`, written one by one, and the count it heard. */
async function throughChunks(redactor: KeyRedactor, parts: readonly string[]): Promise<{ out: string; found: number }> {
  let found = 0;
  const stream = redactor.stream((count) => (found += count));
  const chunks: Buffer[] = [];
  stream.on("data", (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise((resolve) => stream.on("end", resolve));
  for (const part of parts) stream.write(Buffer.from(part, "latin1"));
  stream.end();
  await ended;
  return { out: Buffer.concat(chunks).toString("latin1"), found };
}

describe("the forms of a reflected key that are masked", () => {
  const redactor = new KeyRedactor([key]);

  it.each(forms)("masks the key %s, keeping the text around it and its length", (_name, echoed) => {
    const text = `{"error":"bad key: ${echoed} (see docs)"}`;
    const { text: out, count } = redactor.redact(text);
    expect(count).toBe(1);
    // The middle third of every echo is the key's alone (base64's edges also hold bits of its neighbours).
    expect(out).not.toContain(echoed.slice(echoed.length / 3, (2 * echoed.length) / 3));
    expect(out).toContain("[forage-redacted]");
    expect(out).toHaveLength(text.length);
    expect(out.startsWith('{"error":"bad key: ')).toBe(true);
    expect(out.endsWith(' (see docs)"}')).toBe(true);
  });

  it.each([1, 2, 3, 7, 64])(
    "masks every form split across stream chunks of %i bytes, as it would whole",
    async (size) => {
      const text = forms.map(([, echoed]) => `data: {"echo":"${echoed}"}\n\n`).join("");
      const whole = redactor.redact(text);
      const { out, found } = await throughStream(redactor, text, size);
      expect(found).toBe(forms.length);
      expect(whole.count).toBe(forms.length);
      expect(out).toBe(whole.text);
    },
  );

  it.each(forms)("masks the key %s split in two chunks at every offset, as it would whole", async (_name, echoed) => {
    const text = `data: {"echo":"${echoed}"}\n\n`;
    const whole = redactor.redact(text);
    for (let cut = 1; cut < text.length; cut += 1) {
      const { out, found } = await throughChunks(redactor, [text.slice(0, cut), text.slice(cut)]);
      expect({ cut, out, found }).toEqual({ cut, out: whole.text, found: 1 });
    }
  });

  it("masks an entity without its ; that ends a stream (held back as maybe cut short)", async () => {
    const text = `echo ${everyChar((code) => `&#${code}`)}`;
    const { out, found } = await throughStream(redactor, text, 5);
    expect(found).toBe(1);
    expect(out).toBe(`echo ${"[forage-redacted]".padEnd(text.length - 5, "*")}`);
  });

  it("holds back only a tail that could start a form or an escape: an event's end is never delayed", () => {
    expect(redactor.heldBack('data: {"a":"sk-T"}\n\n')).toBe(0);
    expect(redactor.heldBack("data: sk-te")).toBe(5);
    expect(redactor.heldBack("data: SK%2")).toBe(4);
    expect(redactor.heldBack("data: &#11")).toBe(4);
    expect(redactor.heldBack("data: \\u00")).toBe(4);
    expect(redactor.heldBack("data: 736b2d")).toBe(6);
  });
});

describe("text that is not the key is left as it was", () => {
  const redactor = new KeyRedactor([key]);

  it("control: leaves escapes of other text, another key and a near miss untouched", () => {
    const text = `a \\"quoted\\" \\n %20 &amp; &lt;b&gt; &#xe9; \\u00e9 ${other} ${key.slice(0, -1)}_ ${encodeURIComponent(other)}`;
    expect(redactor.redact(text)).toEqual({ text, count: 0 });
  });

  it("control: a redactor for another key masks nothing of this one", () => {
    const text = forms.map(([, echoed]) => echoed).join(" ");
    expect(new KeyRedactor([other]).redact(text)).toEqual({ text, count: 0 });
  });

  it.each([
    ["reversed", [...key].reverse().join("")],
    ["hex-encoded twice", Buffer.from(hex).toString("hex")],
    ["interleaved with spaces", [...key].join(" ")],
    ["a part of the key", key.slice(0, 12)],
  ])("leaves the key %s unmasked (a known gap, listed in the README)", (_name, echoed) => {
    expect(redactor.redact(echoed).count).toBe(0);
  });
});
