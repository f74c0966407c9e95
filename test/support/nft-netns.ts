import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// Runs the real nft inside a throwaway network namespace (`unshare -n`), so loading a table never
// touches the host's ruleset and every test starts from an empty one.

/** Writes `text` to a fresh temporary file, hands its path to `use`, and removes it afterwards. */
export function withNftFile<T>(text: string, use: (file: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), "forage-nft-"));
  try {
    const file = join(dir, "ruleset.nft");
    writeFileSync(file, text);
    return use(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `nft -c -f FILE`: parse and validate against the kernel without committing. Throws with nft's stderr. */
export function nftCheck(file: string): void {
  execFileSync("unshare", ["-n", "--", "nft", "-c", "-f", file], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

// Constant script; the file, the load count and the `nft list` arguments arrive as positional
// parameters, so no test data is ever parsed by the shell.
const LOAD_THEN_LIST = `file=$1; loads=$2; shift 2
i=0
while [ "$i" -lt "$loads" ]; do nft -f "$file" || exit 1; i=$((i + 1)); done
nft list "$@"`;

/**
 * Loads FILE `loads` times into a fresh namespace, then prints `nft list <listArgs…>` from it.
 *
 * @example nftLoadAndList(file, ["table", "inet", "forage_none"])
 */
export function nftLoadAndList(file: string, listArgs: readonly string[], loads = 1): string {
  return execFileSync("unshare", ["-n", "--", "sh", "-c", LOAD_THEN_LIST, "sh", file, String(loads), ...listArgs], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}
