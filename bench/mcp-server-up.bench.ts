// A stdio MCP server's sandbox at up and down: `npm run bench` (root, systemd-nspawn). The CLI as
// a user types it (`forage-ctl up a -t T -w DIR`, then `forage-ctl down a`), through the daemon it
// starts, for a template without MCP servers and the same template with one stdio server (whose
// sandbox, from a template of its own, up makes beside the agent's and down removes with it).
// The two alternate round by round to cancel drift; a first up and down warm the daemon. Figures:
// the median and spread of each, and what the server's sandbox adds.
import { execFile } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { packageRoot } from "../runtime/core/package-root.js";
import { benchSandboxes } from "./bench-sandboxes.js";

const rounds = 5;
const { dir, workspace } = await benchSandboxes(
  "forage-bench-mcp-up-",
  `user: nobody
network: { base: "10.255" }
secrets:
  token: /forage-bench-placeholder/token
templates:
  server: { network: none }
  plain:
    network: none
    agents: { helper: { package: bashInteractive, executable: bash } }
  with-server:
    extends: plain
    mcp:
      servers:
        s: { command: [sleep, infinity], template: server, env: { TOKEN: token } }
`,
);
const tokenFile = join(dir, "token");
writeFileSync(tokenFile, "tok-bench-up-5c1e8a\n", { mode: 0o600 });
const config = join(dir, "forage.yaml");
writeFileSync(config, readFileSync(config, "utf8").replace("/forage-bench-placeholder/token", tokenFile));

const cli = async (...args: string[]): Promise<number> => {
  const start = performance.now();
  await promisify(execFile)(process.execPath, [join(packageRoot(), "dist/bin/main.js"), "--config", config, ...args]);
  return performance.now() - start;
};

const samples = {
  plain: { up: [] as number[], down: [] as number[] },
  "with-server": { up: [] as number[], down: [] as number[] },
};
try {
  await cli("up", "warm", "-t", "plain", "-w", workspace);
  await cli("down", "warm");
  for (let round = 0; round < rounds; round++)
    for (const template of round % 2 === 0
      ? (["plain", "with-server"] as const)
      : (["with-server", "plain"] as const)) {
      samples[template].up.push(await cli("up", "a", "-t", template, "-w", workspace));
      samples[template].down.push(await cli("down", "a"));
    }
} finally {
  await cli("down", "--all", "--yes").catch(() => undefined);
  await cli("daemon", "--stop").catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const spread = (values: number[]): string => `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`;
process.stdout.write(
  `A stdio MCP server's sandbox at up and down (the CLI through the daemon, ${rounds} alternating rounds)\n`,
);
for (const step of ["up", "down"] as const) {
  for (const template of ["plain", "with-server"] as const)
    process.stdout.write(
      `  ${step.padEnd(4)} ${template.padEnd(11)} median ${median(samples[template][step]).toFixed(0)} ms (${spread(samples[template][step])})\n`,
    );
  process.stdout.write(
    `  ${step.padEnd(4)} added       median +${(median(samples["with-server"][step]) - median(samples.plain[step])).toFixed(0)} ms\n`,
  );
}
