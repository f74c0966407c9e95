import { describe, expect, it } from "vitest";
import { tmpfsCaps } from "../../../runtime/cgroups/tmpfs-caps.js";

const mebi = 1024 ** 2;

describe("tmpfs caps of a sandbox", () => {
  it("gives the default 4G limit a 2G root, a 1G /tmp, a 512M /dev/shm and a 64M /run", () => {
    expect(tmpfsCaps("4G")).toEqual({ root: 2048 * mebi, tmp: 1024 * mebi, devShm: 512 * mebi, run: 64 * mebi });
  });

  it("keeps every tmpfs together below a small memory limit, so a full tmpfs is ENOSPC, not an OOM kill", () => {
    const caps = tmpfsCaps("64M");
    expect(caps).toEqual({ root: 32 * mebi, tmp: 16 * mebi, devShm: 8 * mebi, run: 4 * mebi });
    expect(caps.root + caps.tmp + caps.devShm + caps.run).toBeLessThan(64 * mebi);
  });

  it("does not grow past the ceilings when memory is unlimited or large", () => {
    expect(tmpfsCaps(null)).toEqual(tmpfsCaps("4G"));
    expect(tmpfsCaps("64G")).toEqual(tmpfsCaps("4G"));
  });

  it("never asks for a zero size (which tmpfs reads as unlimited)", () => {
    expect(Math.min(...Object.values(tmpfsCaps("1K")))).toBe(mebi);
  });
});
