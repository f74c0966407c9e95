import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { capContainerTmpfs } from "../../../runtime/backends/extra-container/container-tmpfs.js";
import { tmpfsCaps } from "../../../runtime/cgroups/tmpfs-caps.js";
import { isRoot } from "../../support/tools.js";

/** The last line of a mountinfo at `point` (the mount on top), or undefined. */
const mountLine = (mountinfo: string, point: string): string | undefined =>
  mountinfo
    .split("\n")
    .filter((line) => line.split(" ")[4] === point)
    .at(-1);

describe.skipIf(!isRoot())("capping a NixOS container's tmpfs mounts", () => {
  it("resizes the tmpfs mounts as the container's init sees them and leaves a path that is no tmpfs alone", async () => {
    // GIVEN an init whose /tmp is a tmpfs, whose /dev/shm is a mount of another kind (a ramfs: a
    // directory bound there would be a tmpfs too where the machine's root is one, as in CI's
    // fresh root), and whose /run has no mount of its own (the test machine's).
    const init = spawn(
      "unshare",
      [
        "--mount",
        "--propagation",
        "private",
        "sh",
        "-c",
        "if mountpoint -q /run; then umount -l /run; fi && mount -t ramfs -o mode=1777 ramfs /dev/shm && mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /tmp && echo ready && exec sleep 30",
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    try {
      await Promise.race([
        once(init.stdout, "data"),
        once(init, "exit").then(() => Promise.reject(new Error("the init stand-in exited before it was ready"))),
      ]);
      const pid = init.pid ?? 0;
      const before = readFileSync(`/proc/${pid}/mountinfo`, "utf8");
      // WHEN the caps of a 1G limit are applied
      await capContainerTmpfs(pid, tmpfsCaps("1G"));
      // THEN /tmp is capped at a quarter of it, its flags kept; the ramfs and /run are as they were.
      const after = readFileSync(`/proc/${pid}/mountinfo`, "utf8");
      const tmp = mountLine(after, "/tmp")?.split(" ") ?? [];
      expect([tmp[5], tmp.at(-1)]).toEqual(["rw,nosuid,nodev,relatime", "rw,size=262144k"]);
      expect(mountLine(after, "/dev/shm")).toBe(mountLine(before, "/dev/shm"));
      expect(mountLine(after, "/run")).toBeUndefined();
    } finally {
      init.kill("SIGKILL");
    }
  });
});
