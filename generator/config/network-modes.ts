/**
 * Network modes of a template or a running sandbox. Its own module (no zod) so forage-ctl's
 * runtime can name them without loading the config schema.
 */
export const networkModes = ["none", "restricted", "full"] as const;
export type NetworkMode = (typeof networkModes)[number];
