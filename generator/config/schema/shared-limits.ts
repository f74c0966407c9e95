import { z } from "zod";

/*
 * Value rules the config schema and forage.json's codec (generator/model/settings-*-schema.ts)
 * share: the codec must accept every value the config does, so each limit is written once.
 */

/** A rate-limit window of the API proxy: seconds, minutes or hours. */
export const rateWindow = z
  .string()
  .regex(/^[1-9][0-9]*(s|m|h)$/, { error: 'must be a duration such as "30s", "1m" or "1h"' });
export const rateRequests = z.number().int().min(1).max(1_000_000);
export const rateTokens = z.number().int().min(1).max(1_000_000_000);

/** The proxy's audit log is rotated at this size. */
export const auditLogBytes = z
  .number()
  .int()
  .min(4096)
  .max(1024 * 1024 * 1024);

/** An upstream origin allowed although it is not a public address. */
export const upstreamOrigin = z.url({
  protocol: /^https$/,
  error: 'must be an https origin, e.g. "https://127.0.0.1:8443"',
});

/** CPU quota as systemd's CPUQuota=, a percentage of one CPU. */
export const cpuQuota = z
  .string()
  .regex(/^[1-9][0-9]{0,4}%$/, { error: 'must be a percentage of one CPU, e.g. "200%" for two cores' });

/** A URL path prefix the proxy forwards; never a way up with "..". */
export const proxyPathPrefix = z
  .string()
  .max(256)
  .regex(/^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/, { error: 'must be a URL path starting with "/", e.g. "/v1/messages"' })
  .refine((path) => !path.split("/").includes(".."), { error: "must not contain '..'" });

/** The largest request body the proxy forwards. */
export const proxyRequestBytes = z
  .number()
  .int()
  .min(1024, { error: "must be at least 1024 bytes" })
  .max(1024 * 1024 * 1024, { error: "must be at most 1 GiB" });
