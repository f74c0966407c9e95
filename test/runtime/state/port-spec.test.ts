import { describe, expect, it } from "vitest";
import { portChange } from "../../../cli/commands/port.js";
import { portForwardsSchema } from "../../../runtime/state/port-forward-schema.js";
import { describeForward, parsePortSpec } from "../../../runtime/state/port-spec.js";

describe("a port spec, [HOSTPORT:]PORT", () => {
  it("forwards the same port on the host when only PORT is given", () => {
    expect(parsePortSpec("3000", "add")).toEqual({ forward: { hostPort: 3000, port: 3000 }, hostGiven: false });
  });

  it("takes HOSTPORT:PORT, host side first", () => {
    expect(parsePortSpec("8080:3000", "add")).toEqual({ forward: { hostPort: 8080, port: 3000 }, hostGiven: true });
    expect(describeForward({ hostPort: 8080, port: 3000 })).toBe("127.0.0.1:8080 → 3000");
  });

  it.each([
    ["", /expected PORT or HOSTPORT:PORT/],
    ["http", /expected PORT or HOSTPORT:PORT/],
    ["-1", /expected PORT or HOSTPORT:PORT/],
    ["80.5", /expected PORT or HOSTPORT:PORT/],
    ["0x50", /expected PORT or HOSTPORT:PORT/],
    [" 3000", /expected PORT or HOSTPORT:PORT/],
    ["3000\n", /expected PORT or HOSTPORT:PORT/],
    ["8080:", /expected PORT or HOSTPORT:PORT/],
    ["123456", /expected PORT or HOSTPORT:PORT/],
    ["0", /the sandbox port must be 1-65535/],
    ["65536", /the sandbox port must be 1-65535/],
    ["8080:0", /the sandbox port must be 1-65535/],
    ["70000:80", /the host port must be 1-65535/],
    ["0.0.0.0:8080:3000", /the host address is always 127\.0\.0\.1 \(loopback only\)/],
    ["[::]:8080:3000", /the host address is always 127\.0\.0\.1/],
  ])("refuses %j as a usage error saying what is wrong", (spec, message) => {
    expect(() => parsePortSpec(spec, "add")).toThrow(
      expect.objectContaining({ kind: "usage", message: expect.stringMatching(message) as unknown }),
    );
  });

  it("refuses a privileged host port for a new forward, suggesting a free-to-take one", () => {
    expect(() => parsePortSpec("80", "add")).toThrow(
      'port "80": host port 80 is privileged (below 1024); choose one from 1024-65535, e.g. 8080:80',
    );
    expect(() => parsePortSpec("443:3000", "add")).toThrow(/host port 443 is privileged/);
    expect(parsePortSpec("1024:80", "add").forward).toEqual({ hostPort: 1024, port: 80 });
  });

  it("names any host port when closing (a missing forward is the sandbox's to say)", () => {
    expect(parsePortSpec("80", "remove")).toEqual({ forward: { hostPort: 80, port: 80 }, hostGiven: false });
  });

  it("quotes a bad spec without its control characters, and short", () => {
    expect(() => parsePortSpec(`\x1b[31m${"9".repeat(60)}`, "add")).toThrow(/^port "\?\[31m9{35}…": /);
  });
});

describe("what forage-ctl port asks, from its arguments", () => {
  it("lists with no spec, opens with one, closes with --remove", () => {
    expect(portChange(undefined, false)).toBeNull();
    expect(portChange("8080:3000", false)).toEqual({ kind: "add", forward: { hostPort: 8080, port: 3000 } });
    expect(portChange("8080", true)).toEqual({ kind: "remove", hostPort: 8080, port: null });
    expect(portChange("8080:3000", true)).toEqual({ kind: "remove", hostPort: 8080, port: 3000 });
  });

  it("refuses --remove without a spec as a usage error", () => {
    expect(() => portChange(undefined, true)).toThrow(expect.objectContaining({ kind: "usage" }));
  });
});

describe("the forwards a sandbox's metadata holds", () => {
  it("takes each host port once, at most 32, none privileged", () => {
    expect(
      portForwardsSchema.safeParse([
        { hostPort: 8080, port: 1 },
        { hostPort: 8081, port: 1 },
      ]).success,
    ).toBe(true);
    expect(
      portForwardsSchema.safeParse([
        { hostPort: 8080, port: 1 },
        { hostPort: 8080, port: 2 },
      ]).error?.issues[0]?.message,
    ).toBe("a host port is forwarded twice");
    expect(
      portForwardsSchema.safeParse(Array.from({ length: 33 }, (_, i) => ({ hostPort: 9000 + i, port: 80 }))).success,
    ).toBe(false);
    expect(portForwardsSchema.safeParse([{ hostPort: 22, port: 22 }]).success).toBe(false);
  });
});
