import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { printNftTable } from "../../generator/emit/nft/index.js";
import { hostPolicyTable } from "../../generator/policy/network/host-table.js";
import type { NetworkPolicy } from "../../generator/policy/network/policy-schema.js";
import { sandboxLink } from "../../generator/policy/network/sandbox-link.js";
import { repoRoot } from "./cases.js";

/*
 * The host-side table of a sandbox (what `nft -f` loads on the host end of its link), for a few
 * policies, compared byte for byte with the reviewed files in test/golden/host-table/. To accept
 * an intended change, run `UPDATE_GOLDEN=1 npx vitest run test/golden/host-table.test.ts` and
 * review the diff like code.
 */
const update = process.env.UPDATE_GOLDEN === "1";
const directory = join(repoRoot, "test/golden/host-table");
const link = sandboxLink(7, "10.100");
const services = { dnsPort: 40123, tlsPort: 40124, httpPort: 40125 };
const policy = (mode: NetworkPolicy["mode"], more: Partial<NetworkPolicy> = {}): NetworkPolicy => ({
  mode,
  allow: ["api.example.com"],
  deny: [],
  sni: false,
  ...more,
});

const cases: {
  name: string;
  policy: NetworkPolicy;
  services: typeof services | null;
  externalInterface: string | null;
  proxyPort: number | null;
}[] = [
  { name: "none", policy: policy("none"), services, externalInterface: null, proxyPort: null },
  { name: "none-with-proxy", policy: policy("none"), services, externalInterface: null, proxyPort: 18080 },
  { name: "full", policy: policy("full"), services, externalInterface: null, proxyPort: null },
  { name: "full-external-interface", policy: policy("full"), services, externalInterface: "eth1", proxyPort: null },
  { name: "restricted", policy: policy("restricted"), services, externalInterface: null, proxyPort: null },
  {
    name: "restricted-sni",
    policy: policy("restricted", { sni: true }),
    services,
    externalInterface: null,
    proxyPort: null,
  },
  // The entries are the guard's business: the table is the same as without them.
  {
    name: "restricted-deny-ports",
    policy: policy("restricted", { allow: ["*.example.com:443", "api.example.net:8443"], deny: ["paste.example.com"] }),
    services,
    externalInterface: null,
    proxyPort: null,
  },
  {
    name: "restricted-sni-with-proxy",
    policy: policy("restricted", { sni: true }),
    services,
    externalInterface: null,
    proxyPort: 18080,
  },
  // Loaded before the guard starts, so the sandbox is never up unfenced.
  {
    name: "restricted-before-guard",
    policy: policy("restricted"),
    services: null,
    externalInterface: null,
    proxyPort: null,
  },
];

describe("golden host-side tables", () => {
  it.each(cases)("$name matches its reviewed file", ({ name, policy, services, externalInterface, proxyPort }) => {
    const text = printNftTable(hostPolicyTable(link, policy, services, externalInterface, proxyPort), {
      replace: true,
    });
    const file = join(directory, `${name}.nft`);
    if (update) {
      mkdirSync(directory, { recursive: true });
      writeFileSync(file, text);
    }
    expect(text).toBe(readFileSync(file, "utf8"));
  });

  it("has no reviewed file without its case", () => {
    expect(readdirSync(directory).sort()).toEqual(cases.map((entry) => `${entry.name}.nft`).sort());
  });
});
