/**
 * Entry point of a sandbox's network guard process (see guard.ts), started detached by
 * guard-process.ts with its spec as JSON on argv. Prints one ready line on stdout (its
 * ports), then writes only to stderr (the sandbox's network log).
 */
import { runGuard, type GuardSpec } from "./guard.js";

const spec = JSON.parse(process.argv[2] ?? "null") as GuardSpec | null;
if (spec === null || typeof spec.sandbox !== "string") {
  process.stderr.write("usage: guard-main.js '<spec json>' (started by forage-ctl, not by hand)\n");
  process.exit(64);
}
runGuard(spec, (services) => {
  process.stdout.write(`${JSON.stringify({ ready: true, ...services })}\n`);
}).then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`forage guard ${spec.sandbox}: ${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);
