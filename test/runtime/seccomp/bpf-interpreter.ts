/**
 * A classic-BPF interpreter for the instructions seccomp filters use (LD W ABS, JA, JEQ/JGE/JSET K,
 * RET K), written from the kernel's semantics (net/core/filter.c, kernel/seccomp.c), so the
 * compiler's output is judged by running it, not by reading its bytes back.
 */
export interface SeccompData {
  nr: number;
  arch: number;
  args?: bigint[];
}

function dataWord(data: SeccompData, offset: number): number {
  const bytes = Buffer.alloc(64);
  bytes.writeInt32LE(data.nr | 0, 0);
  bytes.writeUInt32LE(data.arch >>> 0, 4);
  (data.args ?? []).forEach((arg, i) => bytes.writeBigUInt64LE(BigInt.asUintN(64, arg), 16 + i * 8));
  if (offset % 4 !== 0 || offset > 60) throw new Error(`unaligned or out-of-range load at ${offset}`);
  return bytes.readUInt32LE(offset);
}

/** Runs `program` (struct sock_filter array) on `data`; returns the filter's 32-bit verdict. */
export function runFilter(program: Buffer, data: SeccompData): number {
  if (program.length % 8 !== 0) throw new Error("program is not a whole number of instructions");
  let accumulator = 0;
  let pc = 0;
  for (let steps = 0; steps < 10_000; steps++) {
    if (pc * 8 >= program.length) throw new Error(`fell off the end at ${pc}`);
    const code = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    pc++;
    switch (code) {
      case 0x20:
        accumulator = dataWord(data, k);
        break;
      case 0x05:
        pc += k;
        break;
      case 0x15:
        pc += accumulator === k ? jt : jf;
        break;
      case 0x35:
        pc += accumulator >= k ? jt : jf;
        break;
      case 0x45:
        pc += (accumulator & k) >>> 0 !== 0 ? jt : jf;
        break;
      case 0x06:
        return k;
      default:
        throw new Error(`unknown opcode 0x${code.toString(16)}`);
    }
  }
  throw new Error("no verdict");
}
