import { writeFileSync } from "node:fs";
import { scratchDirs } from "../../support/scratch-dirs.js";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { auditIdOf, parseRefusals, readKernelLog } from "../../../runtime/seccomp/kernel-refusals.js";
import { x86_64 } from "../../../runtime/seccomp/syscall-tables.js";

const scratch = scratchDirs("forage-kmsg-");

const id = auditIdOf(4321);
/** Records as this machine's kernel (6.18) wrote them to /dev/kmsg, prefix stripped. */
const record = (auid: number, epoch: number, arch: string, nr: number) =>
  `audit: type=1326 audit(${epoch}.719:34): auid=${auid} uid=65534 gid=65534 ses=1 pid=21200 comm="unshare" exe="/usr/bin/unshare" sig=0 arch=${arch} syscall=${nr} compat=0 ip=0x7fd9a89650f7 code=0x50000`;

describe("counting what a sandbox's filter refused, from the kernel's log", () => {
  it("counts its own records by syscall name, not other sandboxes' or older ones", () => {
    const log = [
      record(id, 2000, "c000003e", 272),
      record(id, 2001, "c000003e", 272),
      record(id, 2002, "c000003e", 250),
      record(id + 1, 2002, "c000003e", 250),
      record(id, 1999, "c000003e", 250),
      'audit: type=1400 audit(2003.1:2): apparmor="DENIED"',
    ].join("\n");
    expect(parseRefusals(log, id, 2000, x86_64)).toEqual({ total: 3, bySyscall: { unshare: 2, keyctl: 1 } });
  });

  it("names calls through another ABI and x32 numbers as such", () => {
    const log = [record(id, 2000, "40000003", 20), record(id, 2000, "c000003e", 0x40000000 + 39)].join("\n");
    expect(parseRefusals(log, id, 0, x86_64)).toEqual({ total: 2, bySyscall: { "other-abi": 1, x32: 1 } });
  });

  it("gives each sandbox an audit id above every real uid", () => {
    expect(auditIdOf(1)).toBeGreaterThan(0x3fffffff);
    expect(auditIdOf(4_194_304)).toBeLessThan(0xffffffff);
  });

  it("reads a log record by record until there is no more", () => {
    const file = join(scratch(), "kmsg");
    writeFileSync(file, `6,1,2,-;${record(id, 2000, "c000003e", 272)}\n`);
    expect(parseRefusals(readKernelLog(file), id, 0, x86_64)).toEqual({ total: 1, bySyscall: { unshare: 1 } });
  });
});
