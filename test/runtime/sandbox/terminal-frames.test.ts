import { describe, expect, it } from "vitest";
import { keysFrames, sizeFrame } from "../../../runtime/sandbox/terminal.js";

/* The frames forage-ctl writes to forage-enter's terminal relay (native/terminal.c reads them). */
describe("terminal relay frames", () => {
  it("carries keystrokes as 'd', a big-endian length and the bytes", () => {
    expect([...keysFrames(Buffer.from("ls\r"))]).toEqual([0x64, 0, 3, 0x6c, 0x73, 0x0d]);
  });

  it("cuts a paste longer than 65535 bytes into several frames, losing nothing", () => {
    const paste = Buffer.alloc(65535 * 2 + 10, 0x61);
    const framed = keysFrames(paste);
    expect(framed.length).toBe(paste.length + 3 * 3);
    expect([...framed.subarray(0, 3)]).toEqual([0x64, 0xff, 0xff]);
    expect([...framed.subarray(65538, 65541)]).toEqual([0x64, 0xff, 0xff]);
    expect([...framed.subarray(131076, 131079)]).toEqual([0x64, 0, 10]);
  });

  it("carries a window size as 'w', length 4, rows and columns, each kept within 1..1000 as forage-enter takes them", () => {
    expect([...sizeFrame({ rows: 40, cols: 300 })]).toEqual([0x77, 0, 4, 0, 40, 0x01, 0x2c]);
    expect([...sizeFrame({ rows: 0, cols: 5000 })]).toEqual([0x77, 0, 4, 0, 1, 0x03, 0xe8]);
  });
});
