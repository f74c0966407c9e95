import { z } from "zod";

/** Where agents reach an API proxy (`proxy.url`, and the reference's spelling `proxyUrl`). */
export const proxyUrlSchema = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });
