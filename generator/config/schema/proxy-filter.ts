import { z } from "zod";
import { proxyPathPrefix, proxyRequestBytes } from "./shared-limits.js";

/** Methods the proxy may forward; anything else (CONNECT, TRACE, …) is never proxied. */
export const proxyMethods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
export type ProxyMethod = (typeof proxyMethods)[number];

/** What a template's sandboxes may ask of their APIs through the proxy. */
export const proxyFilterSchema = z
  .strictObject({
    methods: z
      .array(z.enum(proxyMethods))
      .min(1)
      .max(proxyMethods.length)
      .optional()
      .describe('HTTP methods forwarded; others get 403. Default: ["GET", "HEAD", "POST"].'),
    pathPrefixes: z
      .array(proxyPathPrefix)
      .min(1)
      .max(64)
      .optional()
      .describe('Upstream paths forwarded, by prefix (e.g. "/v1/"); others get 403. Default: ["/"] (every path).'),
    maxRequestBytes: proxyRequestBytes
      .optional()
      .describe("Largest request body forwarded; larger ones get 413. Default: 33554432 (32 MiB)."),
  })
  .describe("Which requests the API proxy forwards for this template's sandboxes.");

export type ProxyFilter = z.output<typeof proxyFilterSchema>;
