import { z } from "zod";
import { allowEntry } from "../../generator/config/schema/allow-entry.js";
import { networkModes } from "../../generator/config/network-modes.js";
import { denyEntry } from "../../generator/policy/network/policy-schema.js";

/** A change asked with `forage-ctl network`: entries are added to the lists in force. The network call's schema. */
export const networkChangeSchema = z.strictObject({
  mode: z.enum(networkModes).exactOptional().describe("the new mode"),
  allow: z.array(allowEntry).max(512).exactOptional().describe("entries added to the allowlist"),
  deny: z.array(denyEntry).max(512).exactOptional().describe("names added to the denylist"),
  sni: z.boolean().exactOptional().describe("check TLS SNI / HTTP Host against the allowlist (restricted mode)"),
  ask: z.boolean().exactOptional().describe("hold names not in the allowlist and ask the human (restricted mode)"),
  reset: z.boolean().exactOptional().describe("start again from the template's policy, then apply the rest"),
  learn: z.literal(true).exactOptional().describe("learn mode: full mode, recording every name the sandbox resolves"),
});

export type NetworkChange = z.output<typeof networkChangeSchema>;
