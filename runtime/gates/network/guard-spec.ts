import type { RuntimePaths } from "../../core/paths.js";

/** What the guard of one sandbox is started with (over the guard host's socket: no secrets in it). */
export interface GuardSpec {
  sandbox: string;
  /** The sandbox's slot: with the base, its link's addresses (known before any file is read). */
  slot: number;
  paths: RuntimePaths;
  /** The network base ("10.100"): with the sandbox's slot, its link's addresses. */
  base: string;
  /** network.upstreamResolver, or null for the host's resolv.conf. */
  upstream: string | null;
  /** The sandbox's own network namespace (its in-sandbox table gets the admitted addresses too). */
  namespace: string | null;
  /** network.admitPrivate: private ranges allowed names may resolve to. */
  admitPrivate: string[];
}
