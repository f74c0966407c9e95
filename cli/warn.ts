/** A warning on stderr, the way every sandbox command prints one. */
export const warn = (message: string): void => void process.stderr.write(`forage-ctl: warning: ${message}\n`);
