import { describe, expect, it } from "vitest";
import { headerPairs, requestHeaders } from "../../../../runtime/gates/api-proxy/forwarded-headers.js";
import { hostMatches } from "../../../../runtime/gates/api-proxy/host-match.js";
import { RateLimiter } from "../../../../runtime/gates/api-proxy/rate-limiter.js";
import { TokenMeter } from "../../../../runtime/gates/api-proxy/token-meter.js";

describe("host binding of placeholders", () => {
  it.each([
    ["api.openai.com", "api.openai.com", true],
    ["api.openai.com", "api.openai.com:443", true],
    ["api.openai.com", "evil.com", false],
    ["api.openai.com", "api.openai.com.evil.com", false],
    ["*.example.com", "api.example.com", true],
    ["*.example.com", "example.com", false],
    ["*.example.com", "badexample.com", false],
    ["api.example.com:8443", "api.example.com:8443", true],
    ["api.example.com:8443", "api.example.com", false],
    ["localhost:9000", "LOCALHOST:9000", true],
  ])("%s covers %s: %s", (entry, host, expected) => {
    expect(hostMatches(entry, host)).toBe(expected);
  });
});

describe("the token meter", () => {
  it("reads Anthropic's streamed usage across chunk boundaries, counting cumulative fields once", () => {
    const meter = new TokenMeter();
    const stream =
      'data: {"usage":{"input_tokens":120,"output_tokens":1}}\n\ndata: {"usage":{"output_tokens":40}}\n\ndata: {"usage":{"output_tok' +
      'ens":57}}\n\n';
    for (let index = 0; index < stream.length; index += 7) meter.observe(Buffer.from(stream.slice(index, index + 7)));
    expect(meter.total()).toBe(177);
  });

  it("prefers a reported total (OpenAI, Gemini) and is 0 without usage", () => {
    const meter = new TokenMeter();
    meter.observe(Buffer.from('{"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}'));
    expect(meter.total()).toBe(15);
    const empty = new TokenMeter();
    empty.observe(Buffer.from('{"ok":true}'));
    expect(empty.total()).toBe(0);
  });
});

describe("the sliding windows", () => {
  it("admits up to the limit, refuses with the wait until the oldest leaves, then admits again", () => {
    const limiter = new RateLimiter({ requests: 3, tokens: null, windowMs: 10_000 });
    expect([0, 1000, 2000].map((time) => limiter.admit("s", time))).toEqual([null, null, null]);
    expect(limiter.admit("s", 2500)).toMatchObject({ limit: "requests", allowed: 3, retryAfterSeconds: 8 });
    expect(limiter.admit("s", 10_001)).toBeNull();
  });

  it("counts right across a million requests in one window, and lets the oldest go one by one", () => {
    const limiter = new RateLimiter({ requests: 1_000_000, tokens: null, windowMs: 2_000_000 });
    let admitted = 0;
    for (let time = 1; time <= 1_000_000; time += 1) if (limiter.admit("s", time) === null) admitted += 1;
    expect(admitted).toBe(1_000_000);
    expect(limiter.admit("s", 1_500_000)).toMatchObject({ limit: "requests" });
    // At 2 000 001 the request of time 1 has left the window: exactly one more fits.
    expect(limiter.admit("s", 2_000_001)).toBeNull();
    expect(limiter.admit("s", 2_000_001)).toMatchObject({ limit: "requests" });
  });
});

describe("request headers", () => {
  it("drops headers the Connection header names, and keys only when asked", () => {
    const pairs = headerPairs([
      "Connection",
      "X-One, x-two",
      "X-One",
      "1",
      "X-Two",
      "2",
      "Authorization",
      "Bearer k",
      "Accept",
      "*/*",
    ]);
    expect(requestHeaders(pairs, false)).toEqual([
      ["authorization", "Bearer k"],
      ["accept", "*/*"],
    ]);
    expect(requestHeaders(pairs, true)).toEqual([["accept", "*/*"]]);
  });
});
