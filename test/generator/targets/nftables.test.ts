import { describe, expect, it } from "vitest";
import { generateCase, goldenCases } from "../../golden/cases.js";
import { nftCheck, nftLoadAndList, withNftFile } from "../../support/nft-netns.js";
import { isRoot, toolsAvailable } from "../../support/tools.js";

const tools = toolsAvailable("nft", "unshare");

describe.skipIf(!tools.run || !isRoot())("generated nftables tables, loaded by the real nft in a throwaway network namespace", () => {
  describe.each(goldenCases)("$name", ({ input }) => {
    it("passes `nft -c` and loads, for every .nft file", async () => {
      const tables = (await generateCase(input)).filter((file) => file.path.endsWith(".nft"));
      for (const table of tables) {
        withNftFile(table.contents, (file) => {
          nftCheck(file);
          // Loaded twice: the file must replace its table atomically, not fail on the second load.
          const listed = nftLoadAndList(file, ["table", "inet", "forage"], 2);
          expect(listed, table.path).toContain("hook output priority filter; policy drop;");
          expect(listed, table.path).toContain('oifname "lo" accept');
        });
      }
    });
  });

  it("produces a table for every none/restricted template and none for full ones", async () => {
    const paths = (await generateCase("test/golden/cases/inheritance/forage.yaml")).map((f) => f.path);
    expect(paths.filter((p) => p.endsWith(".nft")).sort()).toEqual(["templates/claude-narrow.nft", "templates/claude-offline.nft", "templates/claude.nft", "templates/tools.nft", "templates/web.nft"]);
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
});
