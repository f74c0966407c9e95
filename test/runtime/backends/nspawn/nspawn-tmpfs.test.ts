import { describe, expect, it } from "vitest";
import { nspawnArgs } from "../../../../runtime/backends/nspawn/container-process.js";
import { tmpfsCaps } from "../../../../runtime/cgroups/tmpfs-caps.js";

describe("nspawn's tmpfs mounts", () => {
  it("lays size-capped /tmp and /dev/shm over nspawn's RAM-sized ones, before the payload", () => {
    const caps = tmpfsCaps("64M");
    const argv = nspawnArgs({
      root: "/var/lib/forage/roots/a",
      hostname: "a",
      payload: { kind: "placeholder", user: "agent", enter: [] },
      networkNamespacePath: "/run/netns/f1",
      binds: [],
      tmpfs: [
        { path: "/tmp", bytes: caps.tmp },
        { path: "/dev/shm", bytes: caps.devShm },
      ],
      logFile: "/dev/null",
    });
    expect(argv).toContain(`--tmpfs=/tmp:mode=1777,size=${16 * 1024 ** 2}`);
    expect(argv).toContain(`--tmpfs=/dev/shm:mode=1777,size=${8 * 1024 ** 2}`);
    expect(argv.indexOf(`--tmpfs=/tmp:mode=1777,size=${16 * 1024 ** 2}`)).toBeLessThan(argv.indexOf("--"));
  });
});
