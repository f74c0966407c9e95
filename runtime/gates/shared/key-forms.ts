/** Base64 runs shorter than this are not masked: they would mask ordinary text by chance. */
const minBase64Run = 12;

/**
 * The forms a key takes when an upstream reflects it, lower-cased, as they read once a text's
 * escapes are decoded (`decodeEscapes`), so each also covers its percent-encoded (once or twice),
 * JSON-escaped (`\/`, `\u0073`) and HTML-referenced spellings, wholly or in part, in any case:
 * - the key itself;
 * - hex of its bytes;
 * - base64 and base64url at each of the three byte alignments: the characters that depend on the
 *   key alone (`Basic base64(user:key)`, tokens and cookies built from it), padded or not;
 * the hex and base64 forms also of the key as it travels URL-encoded or JSON-escaped. Base64
 * matched without regard to case is still the key: a false match needs 12 characters of it.
 * Not covered (see README): other transforms (reversed, XOR, base32, a part of a key, …).
 *
 * @example keyForms("sk/1") // ["sk/1", "736b2f31", …]
 */
export function keyForms(key: string): string[] {
  if (key.length === 0) return [];
  const forms = new Set([key]);
  const json = JSON.stringify(key).slice(1, -1);
  for (const variant of new Set([key, encodeURIComponent(key), json, json.replaceAll("/", "\\/")])) {
    const bytes = Buffer.from(variant, "utf8");
    forms.add(bytes.toString("hex"));
    for (const core of base64Cores(bytes)) {
      forms.add(core);
      forms.add(core.replaceAll("+", "-").replaceAll("/", "_"));
    }
  }
  // As decodeEscapes leaves text: one character per byte (latin1), lower-cased.
  return [...new Set([...forms].map((form) => Buffer.from(form, "utf8").toString("latin1").toLowerCase()))];
}

/**
 * The base64 characters that depend on `bytes` alone, at each of the three alignments the bytes
 * can have inside a longer encoded text: character i holds bits 6i…6i+5.
 */
function base64Cores(bytes: Buffer): string[] {
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset += 1) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
    const core = encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6));
    if (core.length >= minBase64Run) cores.push(core);
  }
  return cores;
}
