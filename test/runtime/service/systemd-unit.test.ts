import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { quoted, renderUnit, shippedUnitPath } from "../../../runtime/service/systemd-unit.js";

const shipped = readFileSync(shippedUnitPath(), "utf8");
const fill = {
  execStart: ["/usr/bin/node", "/opt/forage/dist/bin/main.js", "daemon"],
  settings: "/etc/forage/forage.yaml",
};

describe("the daemon's systemd unit", () => {
  it("is the shipped unit with only ExecStart and FORAGE_CONFIG filled in", () => {
    const rendered = renderUnit(shipped, fill).split("\n");
    const kept = shipped.split("\n");
    expect(rendered).toHaveLength(kept.length);
    const changed = rendered.flatMap((line, i) => (line === kept[i] ? [] : [line]));
    expect(changed).toEqual([
      'ExecStart="/usr/bin/node" "/opt/forage/dist/bin/main.js" "daemon"',
      'Environment="FORAGE_CONFIG=/etc/forage/forage.yaml"',
    ]);
  });

  it("keeps sandboxes running across a stop and lets the daemon manage their cgroups", () => {
    for (const line of [
      "KillMode=process",
      "Delegate=yes",
      "Restart=on-failure",
      "RuntimeDirectoryPreserve=yes",
      "WantedBy=multi-user.target",
      "ExecReload=/bin/kill -HUP $MAINPID",
    ]) {
      expect(shipped.split("\n")).toContain(line);
    }
  });

  it("adds the gateway's account when the daemon serves one", () => {
    const rendered = renderUnit(shipped, { ...fill, gatewayUser: "forage-gw" });
    expect(rendered).toContain(
      'Environment="FORAGE_CONFIG=/etc/forage/forage.yaml"\nEnvironment="FORAGE_GATEWAY_USER=forage-gw"\n',
    );
  });

  it("quotes what systemd would otherwise read as a specifier, a variable, a quote or an escape", () => {
    expect(quoted('/home/a b/50%/"x"\\y', "environment")).toBe('"/home/a b/50%%/\\"x\\"\\\\y"');
    expect(quoted('/home/a b/50%/"x"\\y', "argument")).toBe('"/home/a b/50%%/\\"x\\"\\\\y"');
    expect(quoted("/srv/$HOME/f", "argument")).toBe('"/srv/$$HOME/f"');
    // A program's path is not expanded (systemd-analyze verify looks for "dol$$" when given it).
    expect(quoted("/srv/$HOME/f", "executable")).toBe('"/srv/$HOME/f"');
    expect(quoted("/srv/$HOME/f", "environment")).toBe('"/srv/$HOME/f"');
  });

  it("refuses a program path with a quote or a backslash, which systemd refuses (and says what to do)", () => {
    for (const program of ['/opt/my "node"/node', "/opt/it's/node", "/opt/a\\b/node"]) {
      expect(() => renderUnit(shipped, { ...fill, execStart: [program, "/x", "daemon"] })).toThrow(
        /systemd refuses a program whose path has a quote or a backslash: .* \(move it, or link it from a plain path\)/,
      );
    }
  });

  it("refuses a control character, which no unit line can carry", () => {
    expect(() => quoted("/tmp/a\nExecStartPre=/bin/evil", "environment")).toThrow(
      /control character: a systemd unit cannot carry it/,
    );
    expect(() => renderUnit(shipped, { ...fill, settings: "/tmp/x\ty" })).toThrow(/control character/);
  });
});
