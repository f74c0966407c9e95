import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { cgroupHierarchies } from "../../../runtime/cgroups/hierarchies.js";

/* Read from this host's own /proc: the real formats, whatever this host mounts (v1, v2 or hybrid). */
describe("cgroup hierarchies of a process", () => {
  it("finds a mount for every hierarchy line of /proc/self/cgroup that the host has mounted", async () => {
    const lines = readFileSync("/proc/self/cgroup", "utf8").trim().split("\n");
    const mountinfo = readFileSync("/proc/self/mountinfo", "utf8");
    const mounted = lines.filter((line) => {
      const controllers = line.split(":")[1] ?? "";
      return controllers === ""
        ? / - cgroup2 /.test(mountinfo)
        : new RegExp(` - cgroup \\S+ \\S*\\b${controllers.split(",")[0] ?? ""}\\b`).test(mountinfo);
    });
    const hierarchies = await cgroupHierarchies();
    expect(hierarchies).toHaveLength(mounted.length);
    for (const h of hierarchies) {
      expect(h.mount.startsWith("/sys/fs/cgroup")).toBe(true);
      expect(h.path === "" || h.path.startsWith("/")).toBe(true);
      expect(h.version === 2 ? h.controllers === "" : h.controllers !== "").toBe(true);
    }
  });

  it("names a v1 controller's own mount, not one whose name merely starts the same (cpu vs cpuacct)", async () => {
    const cpu = (await cgroupHierarchies()).find((h) => h.controllers.split(",").includes("cpu"));
    if (cpu === undefined) return expect(readFileSync("/proc/self/cgroup", "utf8")).not.toMatch(/:cpu[,:]/);
    const options =
      readFileSync("/proc/self/mountinfo", "utf8")
        .split("\n")
        .find((line) => line.split(" ")[4] === cpu.mount)
        ?.split(" - ")[1] ?? "";
    expect(options.split(" ")[2]?.split(",")).toContain("cpu");
  });
});
