/** A path the proxy forwards: decoded for the filter, canonically encoded for the upstream. */
export type CanonicalPath = { ok: true; decoded: string; encoded: string } | { ok: false; reason: string };

/**
 * Characters a raw path may hold: RFC 3986's unreserved and sub-delims, ":" "@", "/" and "%"
 * escapes. Notably not ";" (matrix parameters some servers strip), "\" or anything non-ASCII.
 */
const rawPath = /^(?:[A-Za-z0-9\-._~!$&'()*+,=:@/]|%[0-9A-Fa-f]{2})*$/;

/** Characters left as they are when a decoded segment is encoded again. */
const keptInSegment = /[A-Za-z0-9\-._~!$&'()*+,=:@]/;
/** A segment of kept characters only: its own encoded form. */
const keptSegment = /^[A-Za-z0-9\-._~!$&'()*+,=:@]*$/;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Reads a request path by a strict grammar instead of a list of bad patterns: it must start with
 * "/", hold only the characters above, and every `%XX` is decoded once per segment. A decoded
 * segment must be valid UTF-8 (which refuses overlong forms such as `%c0%ae`) and may not be
 * empty, "." or "..", nor hold "/", "\", "%" (double encoding), ";" or a control character
 * (NUL included). What passes is encoded again one canonical way, so the filter's prefixes and
 * the upstream read the same path.
 *
 * @example canonicalPath("/v1/models/gemini%2Dpro:generate") // { ok: true, decoded: "/v1/models/gemini-pro:generate", encoded: "/v1/models/gemini-pro:generate" }
 */
export function canonicalPath(raw: string): CanonicalPath {
  if (!raw.startsWith("/") || !rawPath.test(raw))
    return { ok: false, reason: "holds a character outside the URL path grammar (such as \\ ; %u or a bad % escape)" };
  const segments = raw.slice(1).split("/");
  const decoded: string[] = [];
  for (const [index, segment] of segments.entries()) {
    let text: string;
    try {
      // Without an escape a segment is ASCII (the grammar above) and decodes to itself.
      text = !segment.includes("%")
        ? segment
        : utf8.decode(
            Buffer.from(
              segment.replace(
                /%([0-9A-Fa-f]{2})|([^%])/g,
                (_all, hex: string | undefined, plain: string | undefined) =>
                  hex === undefined ? (plain as string) : String.fromCharCode(parseInt(hex, 16)),
              ),
              "latin1",
            ),
          );
    } catch {
      return { ok: false, reason: "decodes to invalid or overlong UTF-8" };
    }
    // An empty last segment is a trailing slash; empty ones inside (`//`) are read differently by servers.
    if (text === "" && index === segments.length - 1) {
      decoded.push(text);
      continue;
    }
    if (text === "" || text === "." || text === "..") return { ok: false, reason: 'has an empty, "." or ".." segment' };
    if (/[/\\%;\u0000-\u001f\u007f]/.test(text))
      return { ok: false, reason: 'decodes to a "/", "\\", "%", ";" or a control character' };
    decoded.push(text);
  }
  return { ok: true, decoded: `/${decoded.join("/")}`, encoded: `/${decoded.map(encodeSegment).join("/")}` };
}

/** A decoded segment in its one encoded form: kept characters as they are, others as UTF-8 `%XX`. */
function encodeSegment(text: string): string {
  if (keptSegment.test(text)) return text;
  let out = "";
  for (const char of text) out += keptInSegment.test(char) ? char : encodeURIComponent(char);
  return out;
}
