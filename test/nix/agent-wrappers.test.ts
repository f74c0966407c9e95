import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCaseModel } from "../golden/cases.js";
import { standInLib, standInPkgs, writeCaseOutput } from "../support/generated-case.js";
import { nixBuild, nixString, repoRoot } from "../support/nix.js";
import { toolsAvailable } from "../support/tools.js";

/*
 * The generated wrappers, realised by the real nix-build through the stand-in package set
 * (fake agents that print their argv, command line and environment) and executed.
 */
const tools = toolsAvailable("nix-build", "nix-instantiate");

const keys = {
  "anthropic-api-key": `sk-ant-TEST-${Math.random().toString(36).slice(2)}`,
  "openai-api-key": `sk-openai-TEST-"$(touch /tmp/forage-pwned)"'${Math.random().toString(36).slice(2)}`,
  "gemini-api-key": `AIza-TEST-\${HOME}-${Math.random().toString(36).slice(2)}`,
};

/** An agent's proxy settings file, with lines a wrapper must not export. */
const proxySettings = [
  "ANTHROPIC_BASE_URL=http://10.100.1.1:8080/claude",
  "EXTRA_URL=a=b $(touch /tmp/forage-pwned)",
  "bad name=ignored",
  "=ignored",
  "no equals sign",
  "",
].join("\n");

interface AgentRun {
  status: number | null;
  stdout: string;
  stderr: string;
  env: Map<string, string>;
}

async function buildWrappers(root: string, input: string, template: string): Promise<string> {
  const outDir = await writeCaseOutput(join(root, "out"), input);
  const model = await loadCaseModel(input);
  const packages = model.templates
    .flatMap((t) => t.agents)
    .map((a) => ({ path: a.package, bins: [a.executable ?? a.package.at(-1) ?? ""] }));
  return `
    let
      lib = ${standInLib};
      pkgs = ${standInPkgs(packages)};
      forage = { lib = import ${nixString(join(repoRoot, "modules/lib"))} { inherit lib; }; };
    in
    import ${nixString(join(outDir, "wrappers", `${template}.nix`))} { inherit pkgs forage; secretsDir = ${nixString(join(root, "secrets"))}; }`;
}

function runAgent(storePath: string, name: string, args: string[]): AgentRun {
  const result = spawnSync(join(storePath, "bin", name), args, { encoding: "utf8", env: { PATH: "/usr/bin:/bin" } });
  const env = new Map<string, string>();
  for (const line of result.stdout.split("\n")) {
    const eq = line.indexOf("=");
    if (eq > 0) env.set(line.slice(0, eq), line.slice(eq + 1));
  }
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, env };
}

describe.skipIf(!tools.run)("agent wrappers built with nix-build and executed", () => {
  let root = "";
  let expression = "";
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "forage-wrappers-"));
    mkdirSync(join(root, "secrets"), { mode: 0o700 });
    for (const [name, value] of Object.entries(keys))
      writeFileSync(join(root, "secrets", name), `${value}\n`, { mode: 0o400 });
    // What forage-ctl writes for the agents behind the API proxy (claude: auth proxy, codex: placeholder).
    mkdirSync(join(root, "secrets", "_proxy"));
    writeFileSync(join(root, "secrets", "_proxy", "claude"), proxySettings, { mode: 0o400 });
    writeFileSync(join(root, "secrets", "_proxy", "codex"), "OPENAI_BASE_URL=http://10.100.1.1:8080/codex/v1\n", {
      mode: 0o400,
    });
    expression = await buildWrappers(root, "examples/multi-agent/forage.yaml", "trio");
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("gives the claude agent its own key in ANTHROPIC_API_KEY and passes its arguments through", () => {
    const run = runAgent(nixBuild(expression, "claude"), "claude", ["--print", "two words"]);
    expect(run.status).toBe(0);
    // The wrapper is bin/claude; it execs the package's own program (the stand-in's is named after the package).
    expect(run.env.get("program")).toBe("claude-code");
    expect(run.env.get("argv")).toBe("--print two words");
    expect(run.env.get("ANTHROPIC_API_KEY")).toBe(keys["anthropic-api-key"]);
  });

  it("gives each agent only its own key, never another agent's", () => {
    const codex = runAgent(nixBuild(expression, "codex"), "codex", []);
    expect(codex.env.get("OPENAI_API_KEY")).toBe(keys["openai-api-key"]);
    expect(codex.stdout).not.toContain(keys["anthropic-api-key"]);
    expect(codex.stdout).not.toContain(keys["gemini-api-key"]);
    const gemini = runAgent(nixBuild(expression, "gemini"), "gemini", []);
    expect(gemini.env.get("program")).toBe("gemini");
    expect(gemini.env.get("GEMINI_API_KEY")).toBe(keys["gemini-api-key"]);
    expect(gemini.stdout).not.toContain(keys["openai-api-key"]);
  });

  it("passes a key with shell metacharacters verbatim and never evaluates it", () => {
    rmSync("/tmp/forage-pwned", { force: true });
    const run = runAgent(nixBuild(expression, "codex"), "codex", []);
    expect(run.env.get("OPENAI_API_KEY")).toBe(keys["openai-api-key"]);
    expect(() => readFileSync("/tmp/forage-pwned")).toThrow();
  });

  it("keeps the key out of the agent's command line and out of the built wrapper", () => {
    const storePath = nixBuild(expression, "claude");
    const run = runAgent(storePath, "claude", []);
    // Control: the agent printed its command line (the wrapper execs it: no other process is left).
    expect(run.env.get("cmdline")).toMatch(/\/bin\/claude-code $/);
    expect(run.env.get("cmdline")).not.toContain(keys["anthropic-api-key"]);
    const script = readFileSync(join(storePath, "bin", "claude"), "utf8");
    expect(script).toContain(join(root, "secrets", "anthropic-api-key"));
    expect(script).not.toContain(keys["anthropic-api-key"]);
    const derivation = execFileSync("nix-store", ["--query", "--deriver", storePath], { encoding: "utf8" }).trim();
    expect(readFileSync(derivation, "utf8")).not.toContain(keys["anthropic-api-key"]);
  });

  it("refuses to start the agent when its key file cannot be read, naming the file", () => {
    const secret = join(root, "secrets", "anthropic-api-key");
    chmodSync(secret, 0o000);
    rmSync(secret);
    try {
      const run = runAgent(nixBuild(expression, "claude"), "claude", []);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`claude: cannot read its API key at ${secret}`);
      expect(run.stdout).not.toContain("program=");
    } finally {
      writeFileSync(secret, `${keys["anthropic-api-key"]}\n`, { mode: 0o400 });
    }
  });

  it("exports an agent's proxy settings from its file: valid NAME=value lines only, values verbatim, nothing evaluated", () => {
    rmSync("/tmp/forage-pwned", { force: true });
    const run = runAgent(nixBuild(expression, "claude"), "claude", []);
    expect(run.status).toBe(0);
    expect(run.env.get("ANTHROPIC_BASE_URL")).toBe("http://10.100.1.1:8080/claude");
    expect(run.env.get("EXTRA_URL")).toBe("a=b $(touch /tmp/forage-pwned)");
    expect(run.stdout).not.toContain("ignored");
    expect(() => readFileSync("/tmp/forage-pwned")).toThrow();
    // An agent by "wrapper" has no proxy settings to read.
    const script = readFileSync(join(nixBuild(expression, "gemini"), "bin", "gemini"), "utf8");
    expect(script).not.toContain("_proxy");
  });

  it("refuses to start a proxied agent whose proxy settings are missing, naming the file", () => {
    const file = join(root, "secrets", "_proxy", "codex");
    rmSync(file);
    try {
      const run = runAgent(nixBuild(expression, "codex"), "codex", []);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`codex: cannot read its proxy settings at ${file}`);
    } finally {
      writeFileSync(file, "OPENAI_BASE_URL=http://10.100.1.1:8080/codex/v1\n", { mode: 0o400 });
    }
  });

  it("passes Claude the sandbox's prompt with --append-system-prompt when the file is there, verbatim, and nothing when it is not", () => {
    const prompt = join(root, "prompt.md");
    // The library function the generated wrappers call, given a prompt file of this test's.
    const expression = `
      let
        lib = ${standInLib};
        pkgs = ${standInPkgs([{ path: ["claude-code"], bins: ["claude-code"] }])};
        forage = { lib = import ${nixString(join(repoRoot, "modules/lib"))} { inherit lib; }; };
      in
      forage.lib.agentWrappers { inherit pkgs; agents = { claude = { package = pkgs.claude-code; }; }; promptFiles = { claude = ${nixString(prompt)}; }; }`;
    const storePath = nixBuild(expression, "claude");
    expect(runAgent(storePath, "claude", ["--print", "x"]).env.get("argv")).toBe("--print x");
    rmSync("/tmp/forage-pwned", { force: true });
    writeFileSync(prompt, "# Sandbox\nline two $(touch /tmp/forage-pwned)\n");
    const run = runAgent(storePath, "claude", ["--print", "x"]);
    expect(run.status).toBe(0);
    expect(run.env.get("argv")).toBe("--append-system-prompt # Sandbox");
    expect(run.stdout).toContain("line two $(touch /tmp/forage-pwned) --print x");
    expect(() => readFileSync("/tmp/forage-pwned")).toThrow();
  });

  it("reads a login agent's env file (its token, or the proxy's URL and a stand-in) even with auth wrapper", () => {
    mkdirSync(join(root, "login", "_proxy"), { recursive: true });
    writeFileSync(join(root, "login", "_proxy", "claude"), "CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-test\n", {
      mode: 0o400,
    });
    const expression = `
      let
        lib = ${standInLib};
        pkgs = ${standInPkgs([{ path: ["claude-code"], bins: ["claude-code"] }])};
        forage = { lib = import ${nixString(join(repoRoot, "modules/lib"))} { inherit lib; }; };
      in
      forage.lib.agentWrappers { inherit pkgs; secretsDir = ${nixString(join(root, "login"))}; agents = { claude = { package = pkgs.claude-code; auth = "wrapper"; login = "token"; }; }; }`;
    const run = runAgent(nixBuild(expression, "claude"), "claude", []);
    expect(run.status).toBe(0);
    expect(run.env.get("CLAUDE_CODE_OAUTH_TOKEN")).toBe("sk-ant-oat01-test");
  });

  it("starts an agent without a secret (subscription login) with no key variable set", async () => {
    const subscription = await buildWrappers(join(root, "sub"), "examples/mounts-beads/forage.json", "fullstack");
    const run = runAgent(nixBuild(subscription, "claude"), "claude", []);
    expect(run.status).toBe(0);
    expect(run.env.get("program")).toBe("claude-code");
    expect([...run.env.keys()].filter((k) => k.endsWith("_API_KEY"))).toEqual([]);
  });
});
