import { describe, expect, it } from "vitest";
import { nspawnBackend } from "../../../runtime/backends/nspawn/nspawn-backend.js";
import { hostRootGaps } from "../../../runtime/backends/shared/host-root-gaps.js";
import type { RuntimeContext } from "../../../runtime/core/context.js";
import { template } from "../../generator/model/resolve-helpers.js";

describe("what a host-root sandbox cannot give a template is said at up, not ignored", () => {
  it("names the extra packages (beads' included) and the agents whose permissions go unapplied", () => {
    const asked = template(
      {
        t: {
          extraPackages: ["ripgrep", "python3Packages.black"],
          workspace: { useBeads: { enable: true } },
          agents: {
            claude: { package: "claude-code", hostConfigDir: "~/.claude", permissions: { skipAll: true } },
            plain: { package: "hello", hostConfigDir: "~/.hello" },
          },
        },
      },
      "t",
    );
    const gaps = hostRootGaps(asked);
    expect(gaps).toHaveLength(2);
    expect(gaps[0]).toMatch(
      /^template t's extraPackages \(ripgrep, python3Packages\.black, beads\) are not installed in a sandbox on the host's \/usr/,
    );
    expect(gaps[1]).toMatch(/^template t's permissions for claude are not applied in a sandbox on the host's \/usr/);
  });

  it("says nothing for a template the host's /usr serves in full, and warns through the backend's preflight", async () => {
    expect(
      hostRootGaps(template({ t: { agents: { plain: { package: "hello", hostConfigDir: "~/.hello" } } } }, "t")),
    ).toEqual([]);
    const warnings: string[] = [];
    const context = { warn: (message: string) => void warnings.push(message) } as unknown as RuntimeContext;
    await nspawnBackend.preflight(context, template({ t: { extraPackages: ["ripgrep"] } }, "t"));
    expect(warnings).toEqual([expect.stringContaining("extraPackages (ripgrep) are not installed")]);
  });
});
