import type { Command } from "commander";

type Registrar = (program: Command) => void;

/**
 * Every command module, by the command words it defines. Modules are imported on demand: a run
 * of `forage-ctl exec` loads only what exec needs, which keeps start-up short (the config
 * toolchain alone takes hundreds of milliseconds to import).
 */
const modules: { words: string[]; load: () => Promise<Registrar> }[] = [
  { words: ["init"], load: async () => (await import("./commands/init.js")).registerInit },
  { words: ["validate"], load: async () => (await import("./commands/validate.js")).registerValidate },
  { words: ["generate"], load: async () => (await import("./commands/generate.js")).registerGenerate },
  { words: ["templates"], load: async () => (await import("./commands/templates.js")).registerTemplates },
  { words: ["template"], load: async () => (await import("./commands/template-add.js")).registerTemplateAdd },
  { words: ["schema"], load: async () => (await import("./commands/schema.js")).registerSchema },
  {
    words: ["up", "down", "start", "stop", "reset", "checkpoint", "restore"],
    load: async () => (await import("./commands/lifecycle.js")).registerLifecycle,
  },
  {
    words: ["exec", "shell", "attach", "ssh"],
    load: async () => (await import("./commands/inside.js")).registerInside,
  },
  {
    words: ["ps", "status", "logs", "audit-log"],
    load: async () => (await import("./commands/observe.js")).registerObserve,
  },
  { words: ["run"], load: async () => (await import("./commands/run.js")).registerRun },
  { words: ["runtime"], load: async () => (await import("./commands/runtime-info.js")).registerRuntimeInfo },
  { words: ["snapshot"], load: async () => (await import("./commands/snapshot.js")).registerSnapshot },
  { words: ["network", "denials"], load: async () => (await import("./commands/network.js")).registerNetwork },
  { words: ["port"], load: async () => (await import("./commands/port.js")).registerPort },
  { words: ["gc"], load: async () => (await import("./commands/gc.js")).registerGc },
  { words: ["monitor"], load: async () => (await import("./commands/monitor.js")).registerMonitor },
  { words: ["proxy"], load: async () => (await import("./commands/proxy.js")).registerProxy },
  { words: ["mcp"], load: async () => (await import("./commands/mcp.js")).registerMcp },
  { words: ["auth"], load: async () => (await import("./commands/auth.js")).registerAuth },
  { words: ["daemon"], load: async () => (await import("./commands/daemon.js")).registerDaemon },
  { words: ["service"], load: async () => (await import("./commands/service.js")).registerService },
  { words: ["settings-json"], load: async () => (await import("./commands/settings-json.js")).registerSettingsJson },
  {
    words: ["approvals", "approve", "deny"],
    load: async () => (await import("./commands/approvals.js")).registerApprovals,
  },
  { words: ["pick"], load: async () => (await import("./commands/pick.js")).registerPick },
  { words: ["gateway"], load: async () => (await import("./commands/gateway.js")).registerGateway },
  { words: ["vcs-check", "git"], load: async () => (await import("./commands/vcs.js")).registerVcs },
];

/** Global options that take a value, so the word after them is not mistaken for a command. */
const globalOptionsWithValue = new Set(["-c", "--config"]);

/** The command word of an argv (after node and the script), or undefined. */
export function commandWord(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (globalOptionsWithValue.has(arg)) i++;
    else if (!arg.startsWith("-")) return arg;
  }
  return undefined;
}

/** Registers the module that defines `word`, or every module (help, unknown words). */
export async function registerCommands(program: Command, args: readonly string[]): Promise<void> {
  const word = commandWord(args);
  if (word === undefined && (args.includes("--version") || args.includes("-V"))) return;
  const match = modules.find((m) => word !== undefined && m.words.includes(word));
  for (const module of match === undefined ? modules : [match]) (await module.load())(program);
}
