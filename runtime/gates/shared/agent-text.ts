/**
 * The one escaper of approval text (ARCHITECTURE.md rule 18: text from the sandbox is shown escaped). Every
 * surface that shows a request — `forage-ctl approvals`, `approvals show`, `--json`, the desktop
 * notification, the approvals.notify hook, the audit log's lines — passes the sandbox's text
 * through here, so what the human reads is what the sandbox sent, character for character.
 *
 * A character is shown raw only when it is visible and cannot change the direction or shape of
 * the text around it. Decided from Unicode properties (the runtime's own tables), not a hand
 * list, so a character a list forgot is escaped too:
 *
 * - `\p{C}`: controls (Cc: C0, DEL, C1, TAB, LF, CR), format characters (Cf: zero-width space and
 *   joiners, U+2060–2064 word joiner and invisible operators, U+FEFF, soft hyphen, tag characters,
 *   every bidirectional control), surrogates (Cs: half a pair), private use (Co: no agreed glyph)
 *   and unassigned code points (Cn: a later Unicode, or a font, may give them any meaning).
 * - `\p{Z}` but U+0020: no-break, thin, ideographic and other spaces look like a plain space (or
 *   like nothing), and line and paragraph separators break lines.
 * - `\p{M}`: combining marks (variation selectors among them) draw on the character before them,
 *   which can be the quote or separator forage put there: `=` with U+0338 reads as `≠`.
 * - `\p{Default_Ignorable_Code_Point}`: what renderers draw as nothing although it is a letter
 *   (Hangul fillers U+115F, U+1160, U+3164, U+FFA0).
 * - `\p{Bidi_Control}`: U+061C, U+200E/F, U+202A–202E, U+2066–2069 (all Cf already; named so the
 *   rule reads as it is meant).
 * - U+2800 (Braille pattern blank): a symbol every font draws empty.
 *
 * A backslash is doubled, so the escapes are unambiguous and reversible: `\xNN` (to U+00FF),
 * `\uNNNN` (to U+FFFF) and `\u{NNNNN}`, lower-case hex. Letters of right-to-left scripts (Hebrew,
 * Arabic) are shown: they are visible, and without the controls they cannot reorder text beyond
 * their own run (README, Approvals).
 */
const hidden = /[\p{C}\p{Z}\p{M}\p{Default_Ignorable_Code_Point}\p{Bidi_Control}\u2800\\]/u;

/** One code point as shown: itself, or its escape. */
function escapeChar(char: string): string {
  if (char === " " || !hidden.test(char)) return char;
  if (char === "\\") return "\\\\";
  const code = char.codePointAt(0) ?? 0;
  const hex = code.toString(16);
  if (code <= 0xff) return `\\x${hex.padStart(2, "0")}`;
  return code <= 0xffff ? `\\u${hex.padStart(4, "0")}` : `\\u{${hex}}`;
}

/**
 * Text from a sandbox as it may be shown: on one line, every invisible, spacing-other-than-U+0020,
 * combining or direction-changing character as its escape.
 *
 * @example escapeSandboxText("pay\u200bpal.example\u202e") // → "pay\\u200bpal.example\\u202e"
 */
export function escapeSandboxText(text: string): string {
  return Array.from(text, escapeChar).join("");
}

/**
 * A line that mixes forage's words with parts already escaped by escapeSandboxText (an audit event,
 * a denial record) as it may be shown: every hidden character escaped as escapeSandboxText does,
 * but backslashes left as they are, so the escapes already in it read the same. It guards the
 * terminal against a part that reached the line unescaped; such a part's own backslashes stay
 * ambiguous, which is why sandbox text is escaped where it is recorded.
 *
 * @example escapeLine("denied pay\\u200bpal \u001b[2J") // → "denied pay\\u200bpal \\x1b[2J"
 */
export function escapeLine(text: string): string {
  return Array.from(text, (char) => (char === "\\" ? char : escapeChar(char))).join("");
}

/**
 * The sandbox's text as quoted data, for where it stands inside forage's own words (an SSH login's
 * user name): escaped, with `"` escaped too, so it cannot close its quotes and go on as forage.
 *
 * @example quoteSandboxText('git" to a server with host key SHA256:x') // → "\"git\\\" to a server with host key SHA256:x\""
 */
export function quoteSandboxText(text: string): string {
  return `"${escapeSandboxText(text).replaceAll('"', '\\"')}"`;
}

/** The mark where shown text was cut. */
export const cutMark = "…";

/** Shown text's pieces: an escape (or an escaped quote) is one piece, as is any other code point. */
const shownPiece = /\\(?:x[0-9a-f]{2}|u\{[0-9a-f]+\}|u[0-9a-f]{4}|[\\"])|[\s\S]/gu;

/** Which part of a text a cut keeps: its start, its end (a host name's domain), or both ends. */
export type Keep = "start" | "end" | "ends";

/**
 * Shown text (escaped, or forage's own words around escaped text) cut to at most `max`
 * characters, the cut marked with "…", never inside an escape. `end` keeps the end: the domain of
 * `login.bank.example.evil.example` is `evil.example`, and a cut at the end would hide it.
 *
 * @example cutShown("login.bank.example.evil.example", 20, "end") // → "…xample.evil.example"
 */
export function cutShown(shown: string, max: number, keep: Keep): string {
  if (shown.length <= max) return shown;
  const pieces = shown.match(shownPiece) ?? [];
  const room = Math.max(max - cutMark.length, 0);
  const front = keep === "start" ? room : keep === "ends" ? Math.ceil(room / 2) : 0;
  const head = takeFront(pieces, front);
  const tail = keep === "start" ? [] : takeFront([...pieces].reverse(), room - head.join("").length).reverse();
  return `${head.join("")}${cutMark}${tail.join("")}`;
}

/** The first pieces whose length together is at most `room`. */
function takeFront(pieces: readonly string[], room: number): string[] {
  const taken: string[] = [];
  let length = 0;
  for (const piece of pieces) {
    if (length + piece.length > room) break;
    taken.push(piece);
    length += piece.length;
  }
  return taken;
}
