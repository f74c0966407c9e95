import { readdir, readFile, readlink } from "node:fs/promises";

/** TCP state LISTEN in /proc/net/tcp's `st` column. */
const listen = "0A";
/**
 * Listening addresses a bind of 127.0.0.1:P collides with, as /proc/net/tcp{,6} spell them:
 * 127.0.0.1 and 0.0.0.0; ::, and ::ffff:127.0.0.1 (a dual-stack socket takes IPv4 too).
 */
const colliding = new Set([
  "0100007F",
  "00000000",
  "00000000000000000000000000000000",
  "0000000000000000FFFF00000100007F",
]);

/**
 * The inodes of the sockets listening on `port` where a bind of 127.0.0.1 would collide, from
 * the text of /proc/net/tcp or /proc/net/tcp6 (`sl local_address rem_address st … uid timeout inode`).
 *
 * @example listeningInodes("  0: 0100007F:1F90 00000000:0000 0A … 0 0 4242 …", 8080) // ["4242"]
 */
export function listeningInodes(table: string, port: number): string[] {
  return table
    .split("\n")
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[3] === listen && fields[1] !== undefined)
    .filter((fields) => {
      const [address = "", hexPort = ""] = (fields[1] ?? "").split(":");
      return Number.parseInt(hexPort, 16) === port && colliding.has(address.toUpperCase());
    })
    .map((fields) => fields[9] ?? "0")
    .filter((inode) => inode !== "0");
}

/**
 * Who listens where 127.0.0.1:`port` would: "pid 812 (python3)", or a
 * sentence saying what could be found (a socket of no process we can see, or nothing). Reads
 * /proc as root, only when a forward could not listen.
 */
export async function portHolder(port: number): Promise<string> {
  const tables = await Promise.all(
    ["/proc/net/tcp", "/proc/net/tcp6"].map((file) => readFile(file, "utf8").catch(() => "")),
  );
  const inodes = new Set(tables.flatMap((table) => listeningInodes(table, port)));
  if (inodes.size === 0) return "something that no longer listens (try again)";
  for (const pid of (await readdir("/proc").catch(() => [])).filter((entry) => /^\d+$/.test(entry))) {
    if (await holds(pid, inodes)) return `pid ${pid} (${await processName(pid)})`;
  }
  return "a socket of no process this host shows (another namespace's, or one being closed)";
}

async function holds(pid: string, inodes: Set<string>): Promise<boolean> {
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => []);
  for (const fd of fds) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => "");
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode !== undefined && inodes.has(inode)) return true;
  }
  return false;
}

/**
 * A process's name (its comm), never its command line: the daemon answers users who are not
 * root, and another user's argv may hold a secret (and /proc's hidepid would hide it from them).
 * Control characters, C1 included (some terminals take U+009B as an escape), are dropped.
 */
async function processName(pid: string): Promise<string> {
  const comm = (await readFile(`/proc/${pid}/comm`, "utf8").catch(() => "?")).trim();
  return comm.replace(/[\x00-\x1f\x7f-\x9f]/g, "") || "?";
}
