/**
 * A small classic-BPF assembler: instructions as typed data, jumps to labels resolved to the
 * 8-bit relative offsets the kernel wants, and the limits it enforces checked here, so a program
 * the kernel would refuse fails at build time with a reason.
 */

/** Opcodes (include/uapi/linux/filter.h, bpf_common.h): class | size | mode | op | src. */
const BPF_LD_W_ABS = 0x00 | 0x00 | 0x20;
const BPF_JMP_JA = 0x05 | 0x00;
const BPF_JMP_JEQ_K = 0x05 | 0x10;
const BPF_JMP_JGE_K = 0x05 | 0x30;
const BPF_JMP_JSET_K = 0x05 | 0x40;
const BPF_RET_K = 0x06;

/** The kernel refuses longer programs (BPF_MAXINSNS, include/uapi/linux/bpf_common.h). */
export const maxInstructions = 4096;

/** One step of a program; conditional jumps name their targets by label. */
export type Instruction =
  | { op: "label"; name: string }
  /** Load the 32-bit word at `offset` of struct seccomp_data into the accumulator. */
  | { op: "load"; offset: number }
  /** Accumulator == k, >= k (unsigned), or & k != 0: go to `then`, else to `otherwise`. */
  | { op: "jeq" | "jge" | "jset"; k: number; then: string; otherwise: string }
  | { op: "jump"; to: string }
  | { op: "return"; value: number };

/** A jump target, or the next instruction. */
export const next = "";

/**
 * Assembles a program into the kernel's `struct sock_filter` array (code u16, jt u8, jf u8,
 * k u32; little-endian, as on x86_64 and aarch64).
 * @example assemble([{ op: "return", value: 0x7fff0000 }]) // 06 00 00 00 00 00 ff 7f
 */
export function assemble(program: Instruction[]): Buffer {
  const labels = new Map<string, number>();
  const code: Exclude<Instruction, { op: "label" }>[] = [];
  for (const instruction of program) {
    if (instruction.op !== "label") code.push(instruction);
    else if (labels.has(instruction.name)) throw new Error(`internal: BPF label "${instruction.name}" defined twice`);
    else labels.set(instruction.name, code.length);
  }
  if (code.length === 0 || code.length > maxInstructions)
    throw new Error(`internal: a BPF program needs 1 to ${maxInstructions} instructions, this one has ${code.length}`);
  const last = code[code.length - 1];
  if (last?.op !== "return" && last?.op !== "jump")
    throw new Error("internal: a BPF program must end in a return or a jump");
  const out = Buffer.alloc(code.length * 8);
  code.forEach((instruction, index) => {
    const offset = (label: string, wide = false): number => {
      const target = label === next ? index + 1 : labels.get(label);
      if (target === undefined) throw new Error(`internal: BPF label "${label}" is not defined`);
      const distance = target - index - 1;
      // Jumps only go forward (the kernel refuses loops); conditional offsets are 8-bit.
      if (distance < 0 || distance > (wide ? 0xffffffff : 0xff))
        throw new Error(`internal: BPF jump to "${label}" spans ${distance} instructions`);
      return distance;
    };
    const [opcode, jt, jf, k] = encode(instruction, offset);
    out.writeUInt16LE(opcode, index * 8);
    out.writeUInt8(jt, index * 8 + 2);
    out.writeUInt8(jf, index * 8 + 3);
    out.writeUInt32LE(k >>> 0, index * 8 + 4);
  });
  return out;
}

function encode(
  instruction: Exclude<Instruction, { op: "label" }>,
  offset: (label: string, wide?: boolean) => number,
): [number, number, number, number] {
  switch (instruction.op) {
    case "load":
      return [BPF_LD_W_ABS, 0, 0, instruction.offset];
    case "jump":
      return [BPF_JMP_JA, 0, 0, offset(instruction.to, true)];
    case "return":
      return [BPF_RET_K, 0, 0, instruction.value];
    case "jeq":
    case "jge":
    case "jset": {
      const opcode =
        instruction.op === "jeq" ? BPF_JMP_JEQ_K : instruction.op === "jge" ? BPF_JMP_JGE_K : BPF_JMP_JSET_K;
      return [opcode, offset(instruction.then), offset(instruction.otherwise), instruction.k];
    }
  }
}
