import { describe, expect, it } from "vitest";
import { assemble, maxInstructions, next, type Instruction } from "../../../runtime/seccomp/bpf.js";
import { runFilter } from "./bpf-interpreter.js";

describe("the classic-BPF assembler", () => {
  it("encodes struct sock_filter little-endian: code, jt, jf, k", () => {
    expect([...assemble([{ op: "return", value: 0x7fff0000 }])]).toEqual([0x06, 0, 0, 0, 0, 0, 0xff, 0x7f]);
  });

  it("resolves labels to forward offsets", () => {
    const program = assemble([
      { op: "load", offset: 0 },
      { op: "jeq", k: 7, then: "yes", otherwise: next },
      { op: "return", value: 1 },
      { op: "label", name: "yes" },
      { op: "return", value: 2 },
    ]);
    expect(program.readUInt8(8 + 2)).toBe(1);
    expect(runFilter(program, { nr: 7, arch: 0 })).toBe(2);
    expect(runFilter(program, { nr: 8, arch: 0 })).toBe(1);
  });

  it("refuses undefined or duplicate labels, backward jumps and a missing final return", () => {
    expect(() => assemble([{ op: "jump", to: "nowhere" }])).toThrow(/"nowhere" is not defined/);
    expect(() =>
      assemble([
        { op: "label", name: "a" },
        { op: "label", name: "a" },
        { op: "return", value: 0 },
      ]),
    ).toThrow(/defined twice/);
    expect(() =>
      assemble([
        { op: "label", name: "top" },
        { op: "return", value: 0 },
        { op: "jump", to: "top" },
      ]),
    ).toThrow(/spans -2/);
    expect(() => assemble([{ op: "load", offset: 0 }])).toThrow(/must end in a return/);
  });

  it("refuses a conditional jump longer than 255 instructions and a program over the kernel's limit", () => {
    const filler: Instruction[] = Array.from({ length: 256 }, () => ({ op: "load", offset: 0 }));
    expect(() =>
      assemble([
        { op: "jeq", k: 0, then: "end", otherwise: next },
        ...filler,
        { op: "label", name: "end" },
        { op: "return", value: 0 },
      ]),
    ).toThrow(/spans 256/);
    const tooLong: Instruction[] = Array.from({ length: maxInstructions }, () => ({ op: "load", offset: 0 }));
    expect(() => assemble([...tooLong, { op: "return", value: 0 }])).toThrow(
      /1 to 4096 instructions, this one has 4097/,
    );
  });
});
