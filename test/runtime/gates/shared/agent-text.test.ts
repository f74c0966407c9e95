import { describe, expect, it } from "vitest";
import {
  cutShown,
  escapeLine,
  escapeSandboxText,
  quoteSandboxText,
} from "../../../../runtime/gates/shared/agent-text.js";

/** Reads shown text back into the text it shows: the escapes are unambiguous, so this always works. */
function unescape(shown: string): string {
  return shown.replace(
    /\\(?:x([0-9a-f]{2})|u\{([0-9a-f]+)\}|u([0-9a-f]{4})|(["\\]))/g,
    (_all, x?: string, braced?: string, u?: string, plain?: string) =>
      plain ?? String.fromCodePoint(Number.parseInt(x ?? braced ?? u ?? "", 16)),
  );
}

describe("the approval text escaper: one case of each kind of character it never shows raw", () => {
  it.each([
    ["Cc: a C0 control (ESC)", "\x1b[2J", "\\x1b[2J"],
    ["Cc: TAB, LF and CR", "a\tb\nc\r", "a\\x09b\\x0ac\\x0d"],
    ["Cc: a C1 control (NEL)", "a\u0085b", "a\\x85b"],
    ["Cf: zero-width space", "pay\u200bpal", "pay\\u200bpal"],
    ["Cf: U+2060 word joiner", "a\u2060b", "a\\u2060b"],
    ["Cf: U+2063 invisible separator", "a\u2063b", "a\\u2063b"],
    ["Cf: U+FEFF zero-width no-break space", "\ufeffmain", "\\ufeffmain"],
    ["Cf: soft hyphen", "ex\u00adample", "ex\\xadample"],
    ["Cf: a tag character (astral)", "a\u{e0041}", "a\\u{e0041}"],
    ["Cs: half a surrogate pair", "a\ud800b", "a\\ud800b"],
    ["Co: private use", "a\ue000b\u{f0000}", "a\\ue000b\\u{f0000}"],
    ["Cn: an unassigned code point and a noncharacter", "a\u0378b\uffff", "a\\u0378b\\uffff"],
    ["Zs: no-break space", "git\u00a0push", "git\\xa0push"],
    ["Zs: narrow no-break and ideographic spaces", "a\u202fb\u3000c", "a\\u202fb\\u3000c"],
    ["Zl: line separator", "a\u2028b", "a\\u2028b"],
    ["Zp: paragraph separator", "a\u2029b", "a\\u2029b"],
    ["Mn: a combining mark (= with a long solidus overlay reads ≠)", "a=\u0338b", "a=\\u0338b"],
    ["Mc: a spacing combining mark", "\u0915\u0903", "\u0915\\u0903"],
    ["Me: an enclosing mark", "1\u20dd", "1\\u20dd"],
    ["a variation selector, and one beyond the BMP", "a\ufe0fb\u{e0100}", "a\\ufe0fb\\u{e0100}"],
    ["Default_Ignorable letters: Hangul fillers", "a\u3164b\u115f", "a\\u3164b\\u115f"],
    ["U+2800, the Braille blank", "a\u2800b", "a\\u2800b"],
    ["a backslash, so escapes are unambiguous", "a\\x1b", "a\\\\x1b"],
  ])("%s", (_kind, text, shown) => {
    expect(escapeSandboxText(text)).toBe(shown);
    expect(unescape(escapeSandboxText(text))).toBe(text);
  });

  it.each([
    ["U+061C arabic letter mark (the one the old escaper missed)", "\u061c"],
    ["U+200E left-to-right mark", "\u200e"],
    ["U+200F right-to-left mark", "\u200f"],
    ["U+202A left-to-right embedding", "\u202a"],
    ["U+202B right-to-left embedding", "\u202b"],
    ["U+202C pop directional formatting", "\u202c"],
    ["U+202D left-to-right override", "\u202d"],
    ["U+202E right-to-left override", "\u202e"],
    ["U+2066 left-to-right isolate", "\u2066"],
    ["U+2067 right-to-left isolate", "\u2067"],
    ["U+2068 first strong isolate", "\u2068"],
    ["U+2069 pop directional isolate", "\u2069"],
  ])("bidi control %s", (_name, char) => {
    expect(escapeSandboxText(`x${char}y`)).toBe(`x\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}y`);
  });

  it("shows visible text as it is: ASCII and its space, accented, CJK and right-to-left letters, symbols, emoji", () => {
    for (const text of ["origin refs/heads/fix-42 (3 commits)", "café", "日本語", "שלום", "مرحبا", "→ ≠ ©", "👍"])
      expect(escapeSandboxText(text)).toBe(text);
  });
});

describe("a sweep over every code point", () => {
  /** Visible and direction-neutral: letters, numbers, punctuation, symbols; written apart from the escaper's rule. */
  const visible = /^[\p{L}\p{N}\p{P}\p{S}]$/u;
  const ignorable = /^[\p{Default_Ignorable_Code_Point}\p{Bidi_Control}\u2800]$/u;

  it("lets through raw only U+0020 and visible characters, escapes everything else, and reads back to the same text", () => {
    const raw: number[] = [];
    const wrong: string[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      const char = String.fromCodePoint(code);
      const shown = escapeSandboxText(char);
      if (shown === char) {
        raw.push(code);
        if (char !== " " && (!visible.test(char) || ignorable.test(char)))
          wrong.push(`U+${code.toString(16)} shown raw`);
      } else if (!/^\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|u\{[0-9a-f]{5,6}\}|\\)$/.test(shown) || unescape(shown) !== char) {
        wrong.push(`U+${code.toString(16)} shown as ${JSON.stringify(shown)}`);
      }
    }
    expect(wrong).toEqual([]);
    // Nothing invisible, spacing, combining or bidirectional among what passes raw, by category.
    expect(raw.filter((code) => /[\p{C}\p{Z}\p{M}]/u.test(String.fromCodePoint(code)) && code !== 0x20)).toEqual([]);
    expect(raw.length).toBeGreaterThan(100_000);
  });

  it("keeps a quoted string inside its quotes: its quotes and backslashes are escaped, whatever it holds", () => {
    for (const text of ['git" to a server with host key SHA256:x ("', 'a\\"b', "\\", '"']) {
      const quoted = quoteSandboxText(text);
      expect(quoted).toMatch(/^"(?:[^"\\]|\\.)*"$/);
      expect(unescape(quoted.slice(1, -1))).toBe(text);
    }
  });
});

describe("cutting shown text", () => {
  it("keeps a host name's end, where its domain is, and marks the cut", () => {
    expect(cutShown("login.bank.example.evil.example", 20, "end")).toBe("…xample.evil.example");
    expect(cutShown("short.example", 20, "end")).toBe("short.example");
  });

  it("keeps the start, or both ends, when asked", () => {
    expect(cutShown("SHA256:abcdefghij (me)", 12, "start")).toBe("SHA256:abcd…");
    expect(cutShown("refs/heads/a-very-long-branch-name", 21, "ends")).toBe("refs/heads…ranch-name");
  });

  it("never cuts inside an escape", () => {
    const shown = escapeSandboxText("a\u200bb\u200bc\u200bd.evil.example");
    for (let max = 2; max < shown.length; max++) {
      const cut = cutShown(shown, max, "end");
      expect(cut.length).toBeLessThanOrEqual(max);
      expect(cut.slice(1)).toMatch(/^(?:\\u200b|[a-z.])*$/);
    }
  });
});

describe("escapeLine", () => {
  it("escapes hidden characters as escapeSandboxText does, but leaves backslashes, so escapes already made read the same", () => {
    const escaped = escapeSandboxText("pay\u200bpal");
    expect(escapeLine(`host ${escaped} \u001b[2J\u202e`)).toBe(`host ${escaped} \\x1b[2J\\u202e`);
    expect(escapeLine(escapeLine("a\u0007b"))).toBe("a\\x07b");
  });
});
