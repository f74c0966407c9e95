import { describe, expect, it } from "vitest";
import { formatSseEvent, SseReader } from "../../../../runtime/gates/mcp-gate/sse-events.js";

describe("reading a server's event stream", () => {
  it("finds events however the stream is cut, with any line ending, comments left out", () => {
    const stream =
      ': hello\r\nevent: message\r\nid: 1\r\ndata: {"a":1}\r\n\r\ndata: line one\ndata: line two\n\nid: 2\r\r';
    for (const size of [1, 2, 3, 7, stream.length]) {
      const reader = new SseReader(1024);
      const events = [];
      for (let at = 0; at < stream.length; at += size) events.push(...reader.push(stream.slice(at, at + size)));
      expect(events).toEqual([
        { event: "message", id: "1", data: '{"a":1}' },
        { data: "line one\nline two" },
        { id: "2", data: "" },
      ]);
    }
  });

  it("refuses an event longer than its limit instead of holding it", () => {
    const reader = new SseReader(64);
    expect(() => reader.push(`data: ${"x".repeat(100)}`)).toThrow("over 64 bytes");
    // Many short events are not one long one.
    const many = new SseReader(64);
    expect(many.push("data: x\n\n".repeat(50))).toHaveLength(50);
  });

  it("writes an event back as a stream reads it, a line feed in its data kept", () => {
    const event = { event: "message", id: "7", data: '{"x":"a"}\n{"y":2}' };
    expect(formatSseEvent(event)).toBe('event: message\nid: 7\ndata: {"x":"a"}\ndata: {"y":2}\n\n');
    expect(new SseReader(1024).push(formatSseEvent(event))).toEqual([event]);
  });
});
