import { closeSync, openSync, readSync, constants } from "node:fs";
import { runningArch, type SyscallArch } from "./syscall-tables.js";

/** What a sandbox's filter refused, by syscall name, as far as the kernel's log still tells. */
export interface Refusals {
  total: number;
  bySyscall: Record<string, number>;
}

/** AUDIT_SECCOMP (include/uapi/linux/audit.h): the record type of a logged seccomp action. */
const seccompRecord = /audit: type=1326 audit\((\d+)\.\d+:\d+\): auid=(\d+) .*? arch=([0-9a-f]+) syscall=(\d+) /;

/**
 * The audit id a sandbox's processes carry as their loginuid (records show it as `auid`): its
 * container leader's host pid, above any real uid (pids stay below 2^22).
 */
export function auditIdOf(leaderPid: number): number {
  return 0x40000000 + leaderPid;
}

/**
 * Counts the seccomp records of one sandbox (its audit id, at or after `since`) in kernel log
 * text. A call through another ABI is counted as `other-abi`; an x32 number as `x32`.
 * @example parseRefusals("…audit: type=1326 audit(1795527509.419:3): auid=1073742000 … arch=c000003e syscall=272 compat=0 …", 1073742000, 0, x86_64) // { total: 1, bySyscall: { unshare: 1 } }
 */
export function parseRefusals(text: string, auditId: number, sinceSeconds: number, arch: SyscallArch): Refusals {
  const names = new Map(Object.entries(arch.numbers).map(([name, nr]) => [nr, name]));
  const bySyscall: Record<string, number> = {};
  let total = 0;
  for (const line of text.split("\n")) {
    const match = seccompRecord.exec(line);
    if (match === null || Number(match[2]) !== auditId || Number(match[1]) < sinceSeconds) continue;
    const nr = Number(match[4]);
    const name =
      parseInt(match[3] ?? "", 16) !== arch.auditArch
        ? "other-abi"
        : arch.x32Bit !== null && nr >= arch.x32Bit
          ? "x32"
          : (names.get(nr) ?? `syscall ${nr}`);
    bySyscall[name] = (bySyscall[name] ?? 0) + 1;
    total++;
  }
  return { total, bySyscall };
}

/**
 * The kernel log's records still in its ring buffer (/dev/kmsg, read without blocking; root
 * only). Records the buffer has dropped, or that the kernel's printk rate limit held back
 * (the log's "audit: printk limit exceeded"), are not there: counts are a lower bound.
 */
export function readKernelLog(path = "/dev/kmsg"): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const buffer = Buffer.alloc(8192);
  const records: string[] = [];
  try {
    for (;;) {
      try {
        // One read is one record ("level,seq,usec,flags;text"); 0 only at the end of a plain file.
        const length = readSync(fd, buffer);
        if (length === 0) break;
        records.push(buffer.toString("utf8", 0, length));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // EPIPE: the record read next was overwritten meanwhile; carry on with the next.
        if (code === "EPIPE") continue;
        if (code === "EAGAIN") break;
        throw error;
      }
    }
  } finally {
    closeSync(fd);
  }
  return records.join("").replace(/^\d+,\d+,\d+,[^;]*;/gm, "");
}

/**
 * What the filter refused in the sandbox whose container leader is `leaderPid`, since it started;
 * null when this process may not read the kernel's log (not root) or the host has none.
 */
export function sandboxRefusals(leaderPid: number, startedAt: string): Refusals | null {
  let log: string;
  try {
    log = readKernelLog();
  } catch (error) {
    if (["EACCES", "EPERM", "ENOENT"].includes((error as NodeJS.ErrnoException).code ?? "")) return null;
    throw error;
  }
  return parseRefusals(log, auditIdOf(leaderPid), Math.floor(Date.parse(startedAt) / 1000), runningArch());
}
