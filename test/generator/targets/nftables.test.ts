import { describe, expect, it } from "vitest";
import { generateCase, goldenCases, loadCaseModel } from "../../golden/cases.js";
import { nftCheck, nftLoadAndList, withNftFile } from "../../support/nft-netns.js";
import { isRoot, toolsAvailable } from "../../support/tools.js";

const tools = toolsAvailable("nft", "unshare");

/** The tables each golden case must produce, written out: a new case must say what it expects. */
const expectedTables: Record<string, string[]> = {
  "example-quickstart": ["templates/shell.nft"],
  "example-restricted-claude": ["templates/claude.nft"],
  "example-multi-agent": ["templates/base.nft", "templates/trio.nft"],
  // Its one template is "full": nothing to enforce inside, so no table.
  "example-mounts-beads": [],
  "hostile-strings": ["templates/odd-mcp.nft", "templates/odd.nft"],
  inheritance: [
    "templates/claude-narrow.nft",
    "templates/claude-offline.nft",
    "templates/claude.nft",
    "templates/tools.nft",
    "templates/web.nft",
  ],
};

describe.skipIf(!tools.run || !isRoot())(
  "generated nftables tables, loaded by the real nft in a throwaway network namespace",
  () => {
    describe.each(goldenCases)("$name", ({ name, input }) => {
      it("has a table for each none/restricted template and none for a full one, each passing `nft -c` and loading", async () => {
        const model = await loadCaseModel(input);
        const tables = (await generateCase(input)).filter((file) => file.path.endsWith(".nft"));
        const enforced = model.templates.filter((template) => template.network.mode !== "full");
        // Exactly these files, as written out above and as its templates' modes say.
        const paths = tables.map((table) => table.path).sort();
        expect(paths).toEqual(expectedTables[name]);
        expect(paths).toEqual(enforced.map((template) => `templates/${template.name}.nft`).sort());
        for (const template of enforced) {
          const table = tables.find((file) => file.path === `templates/${template.name}.nft`);
          withNftFile(table?.contents ?? "", (file) => {
            nftCheck(file);
            // Loaded twice: the file must replace its table atomically, not fail on the second load.
            const listed = nftLoadAndList(file, ["table", "inet", "forage"], 2);
            expect(listed, template.name).toContain(
              `comment "forage template ${template.name}: network ${template.network.mode}"`,
            );
            expect(listed, template.name).toContain("hook output priority filter; policy drop;");
            expect(listed, template.name).toContain('oifname "lo" accept');
            // Only a restricted sandbox reaches addresses its DNS filter admitted.
            expect(listed.includes("ip daddr @allowed4 accept"), template.name).toBe(
              template.network.mode === "restricted",
            );
          });
        }
      });
    });

    it("produces a table for every none/restricted template and none for full ones", async () => {
      const paths = (await generateCase("test/golden/cases/inheritance/forage.yaml")).map((f) => f.path);
      expect(paths.filter((p) => p.endsWith(".nft")).sort()).toEqual([
        "templates/claude-narrow.nft",
        "templates/claude-offline.nft",
        "templates/claude.nft",
        "templates/tools.nft",
        "templates/web.nft",
      ]);
    });

    it("lets a restricted sandbox reach its DNS filter and proxy on the host side, and a none sandbox only the proxy", async () => {
      const files = await generateCase("test/golden/cases/inheritance/forage.yaml");
      const text = (path: string): string => files.find((f) => f.path === path)?.contents ?? "";
      expect(text("templates/claude.nft")).toContain("ip daddr 10.77.0.0/16 udp dport 53 accept");
      expect(text("templates/claude.nft")).toContain("ip daddr 10.77.0.0/16 tcp dport 8443 accept");
      expect(text("templates/claude.nft")).toContain("ip daddr @allowed4 accept");
      expect(text("templates/claude-offline.nft")).not.toContain("dport 53");
      expect(text("templates/claude-offline.nft")).not.toContain("@allowed4");
      expect(text("templates/claude-offline.nft")).toContain("tcp dport 8443 accept");
    });
  },
);
