/**
 * HTML's named references for the ASCII characters that have one (WHATWG's list; letters, digits
 * and `-` have none), by lower-cased name: `&QUOT;` and `&Hat;` count too.
 */
// A Map, not an object: a name such as "constructor" must find nothing.
const namedEntities: ReadonlyMap<string, string> = new Map([
  ["excl", "!"],
  ["quot", '"'],
  ["num", "#"],
  ["dollar", "$"],
  ["percnt", "%"],
  ["amp", "&"],
  ["apos", "'"],
  ["lpar", "("],
  ["rpar", ")"],
  ["ast", "*"],
  ["midast", "*"],
  ["plus", "+"],
  ["comma", ","],
  ["period", "."],
  ["sol", "/"],
  ["colon", ":"],
  ["semi", ";"],
  ["lt", "<"],
  ["equals", "="],
  ["gt", ">"],
  ["quest", "?"],
  ["commat", "@"],
  ["lsqb", "["],
  ["lbrack", "["],
  ["bsol", "\\"],
  ["rsqb", "]"],
  ["rbrack", "]"],
  ["hat", "^"],
  ["lowbar", "_"],
  ["underbar", "_"],
  ["grave", "`"],
  ["diacriticalgrave", "`"],
  ["lcub", "{"],
  ["lbrace", "{"],
  ["verbar", "|"],
  ["vert", "|"],
  ["verticalline", "|"],
  ["rcub", "}"],
  ["rbrace", "}"],
]);

/**
 * The escapes of the given characters (and of their upper case), in text already lower-cased:
 * percent-encoded once or twice; JSON's `\u00XX` and short escapes, their backslash escaped
 * again as when a JSON text is quoted inside another (`\\u00XX`); HTML's decimal and hex
 * references (any leading zeros, `;` optional as HTML parsers allow, the number not going on) and
 * named ones. Escapes of other characters (`\"`, `%20`, `&amp;` in most texts) are left alone:
 * they cannot be part of a key, and the search stays one native pass over most bodies.
 *
 * @example escapePattern(["/"]).source // "%(?:25)?(2f)|\\\\+(?:u00(2f)|(\\/))|&#x0*(2f)(?![0-9a-f]);?|&#0*(47)(?![0-9]);?|&(sol);"
 */
export function escapePattern(chars: Iterable<string>): RegExp {
  const codes = [...new Set([...chars].flatMap((char) => [char, char.toUpperCase()]))]
    .filter((char) => char.length === 1 && char.charCodeAt(0) <= 0xff)
    .map((char) => char.charCodeAt(0));
  const hex = oneOf(codes.map((code) => code.toString(16).padStart(2, "0")));
  const short = oneOf(["/", "\\", '"'].filter((char) => codes.includes(char.charCodeAt(0))).map((char) => `\\${char}`));
  const names = oneOf(
    [...namedEntities].filter(([, char]) => codes.includes(char.charCodeAt(0))).map(([name]) => name),
  );
  // The groups, in this order, are decodeEscapes' arguments. A backslash's two kinds share one
  // attempt: JSON's \n and \" are everywhere in a model's answer, and each failed attempt costs.
  const alternatives = [
    `%(?:25)?(${hex})`,
    `\\\\+(?:u00(${hex})|(${short}))`,
    `&#x0*(${hex})(?![0-9a-f]);?`,
    `&#0*(${oneOf(codes.map(String))})(?![0-9]);?`,
    `&(${names});`,
  ];
  return new RegExp(alternatives.join("|"), "g");
}

/** An alternation of the sources, or one that never matches. */
function oneOf(sources: string[]): string {
  return sources.length === 0 ? "(?!)" : sources.join("|");
}

/**
 * How a text's end may be the first part of an escape the next chunk completes or changes: a
 * number without its `;` may go on, `%25` may be half of `%252F`. At worst it holds a few bytes
 * that were not an escape.
 */
const unfinished = /(?:%(?:[0-9a-f]|25[0-9a-f]?)?|\\+(?:u[0-9a-f]{0,3})?|&(?:#x?[0-9a-f]*|[a-z][a-z0-9]*)?)$/;

/** A text with its escapes decoded and letters lower-cased, and where each character came from. */
export interface Decoded {
  text: string;
  /** The decoded index of each escape, ascending; none when nothing was decoded. */
  escapes: number[];
  /** After escape k, how many more characters the original has than the decoded text. */
  extra: number[];
  /** Where an escape that the text's end may have cut short starts (left undecoded), or null. */
  unfinished: number | null;
}

/**
 * Decodes the escapes a careless API puts a reflected key through (those `escapes`, from
 * `escapePattern`, matches), so one search finds the key however each of its characters was
 * written, wholly or in part. Letters are lower-cased (an upper-cased key is the key). When `more`
 * text follows (a stream's next chunk), an escape the end may have cut short is left undecoded and
 * reported, so the stream holds it back. One native pass; a text with no such escape is only
 * lower-cased.
 *
 * @example decodeEscapes("SK%2D&#x31;", escapePattern("sk-1"), false).text // "sk-1"
 */
export function decodeEscapes(text: string, escapes: RegExp, more: boolean): Decoded {
  const lowered = text.toLowerCase();
  const decoded: Decoded = { text: lowered, escapes: [], extra: [], unfinished: null };
  const tail = more ? unfinished.exec(lowered.slice(-64)) : null;
  const end = tail === null ? lowered.length : lowered.length - tail[0].length;
  if (end < lowered.length) decoded.unfinished = end;
  const body = end < lowered.length ? lowered.slice(0, end) : lowered;
  decoded.text = body;
  // Three native searches are ~15 times cheaper than the expression's scan of a text without escapes.
  if (body.indexOf("%") === -1 && body.indexOf("\\") === -1 && body.indexOf("&") === -1) return decoded;
  let extra = 0;
  decoded.text = body.replace(
    escapes,
    (
      found: string,
      percent?: string,
      unicode?: string,
      short?: string,
      hex?: string,
      decimal?: string,
      name?: string,
      offset = 0,
    ) => {
      const char =
        short ??
        (name !== undefined
          ? (namedEntities.get(name) as string)
          : String.fromCharCode(
              decimal !== undefined ? Number(decimal) : parseInt(percent ?? unicode ?? hex ?? "", 16),
            ).toLowerCase());
      decoded.escapes.push(offset - extra);
      extra += found.length - 1;
      decoded.extra.push(extra);
      return char;
    },
  );
  return decoded;
}

/**
 * Where decoded character `index` starts in the original text (for `index` = the decoded length:
 * where the decoded part ends).
 */
export function originOf(decoded: Decoded, index: number): number {
  const { escapes, extra } = decoded;
  // The last escape before `index`: everything after it is shifted by its extra.
  let low = 0;
  let high = escapes.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((escapes[middle] as number) < index) low = middle + 1;
    else high = middle;
  }
  return index + (low === 0 ? 0 : (extra[low - 1] as number));
}
