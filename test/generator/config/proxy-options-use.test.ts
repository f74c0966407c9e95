import { describe, expect, it } from "vitest";
import { proxyNeeded } from "../../../runtime/gates/api-proxy/sandbox-routes.js";
import { configProbe } from "./temp-config.js";

/*
 * Options only the API proxy reads (an agent's `api`, its `hosts`, a template's `useProxy` and
 * `proxyFilter`, `proxy.enable`) are never accepted and ignored: each is read (the model shows
 * it), refused at its own key with the fix, or, for the two a loaded config may carry without
 * harm, noted as having no effect. Likewise the monitor's autoRestart, which only the daemon's
 * monitor reads.
 */
const head = "user: alice\nsecrets: { a: /run/keys/a }\n";
const key = "secretName: a, authEnvVar: ANTHROPIC_API_KEY";
const { problems, load } = configProbe(head);

describe("an agent's api", () => {
  it("is refused, at its key, on an agent with auth wrapper: nothing reads it", async () => {
    expect(
      await problems(
        `templates:\n  t:\n    agents:\n      c: { package: claude-code, ${key}, auth: wrapper, api: { upstream: "https://api.example.com" } }\n`,
      ),
    ).toEqual([
      expect.stringMatching(
        /^6:95: templates\.t\.agents\.c\.api: api says how the API proxy reaches the agent's API, and auth "wrapper" does not go through the proxy: remove api, or use auth "proxy" or "placeholder"$/,
      ),
    ]);
  });

  it("is refused on an agent with no key or login for the proxy to add", async () => {
    expect(
      await problems(
        "templates:\n  t:\n    agents:\n      c: { package: claude-code, api: { provider: anthropic } }\n",
      ),
    ).toEqual([
      expect.stringMatching(
        /templates\.t\.agents\.c\.api: .*this agent has no key \(secretName\) or login for the proxy to add: remove api, or give it a key or a login$/,
      ),
    ]);
  });

  it("is refused on an agent without auth whose templates all leave useProxy off, naming them", async () => {
    const yaml = `templates:\n  t:\n    agents:\n      c: { package: claude-code, ${key}, api: { upstream: "https://api.example.com" } }\n  u: { extends: t, network: full }\n`;
    expect(await problems(yaml)).toEqual([
      expect.stringMatching(
        /templates\.t\.agents\.c\.api: .*goes by auth "wrapper" \(no auth of its own, and useProxy is off in templates "t", "u"\), so nothing reads it: set auth "proxy" \(or useProxy: true\), or remove api$/,
      ),
    ]);
  });

  it("is read when a template extending the agent's turns useProxy on", async () => {
    const yaml = `templates:\n  t:\n    agents:\n      c: { package: claude-code, ${key}, api: { upstream: "https://api.example.com" } }\n  u: { extends: t, useProxy: true }\n`;
    const { model, notes } = await load(yaml);
    expect(notes).toEqual([]);
    expect(model.templates.find((t) => t.name === "u")?.agents[0]).toMatchObject({
      auth: "proxy",
      api: { upstream: "https://api.example.com" },
    });
    expect(model.templates.find((t) => t.name === "t")?.agents[0]).toMatchObject({ auth: "wrapper", api: null });
  });

  it("keeps only api.upstream and api.tokenUrl on an agent with a login (its API and headers are its program's own)", async () => {
    const found = await problems(
      'templates:\n  t:\n    agents:\n      c: { package: claude-code, login: oauth, api: { provider: anthropic, header: x-key, upstream: "https://api.example.com", tokenUrl: "https://auth.example.com/token" } }\n',
    );
    expect(found).toEqual([
      expect.stringMatching(
        /templates\.t\.agents\.c\.api\.provider: api\.provider has no effect on an agent with a login/,
      ),
      expect.stringMatching(
        /templates\.t\.agents\.c\.api\.header: api\.header has no effect on an agent with a login: .*only api\.upstream and api\.tokenUrl apply\): remove api\.header$/,
      ),
    ]);
    const { model } = await load(
      'templates:\n  t:\n    agents:\n      c: { package: claude-code, login: oauth, api: { upstream: "https://api.example.com", tokenUrl: "https://auth.example.com/token" } }\n',
    );
    expect(model.templates[0]?.agents[0]).toMatchObject({
      api: { upstream: "https://api.example.com" },
      login: { tokenUrl: "https://auth.example.com/token" },
    });
  });

  it("refuses api.tokenUrl on a token login, which is never refreshed", async () => {
    expect(
      await problems(
        'templates:\n  t:\n    agents:\n      c: { package: claude-code, login: token, auth: proxy, api: { tokenUrl: "https://auth.example.com/token" } }\n',
      ),
    ).toEqual([
      expect.stringMatching(
        /templates\.t\.agents\.c\.api\.tokenUrl: api\.tokenUrl is where an oauth login is refreshed, and a "token" login is never refreshed: remove api\.tokenUrl$/,
      ),
    ]);
  });
});

describe("an agent's api.hosts", () => {
  it("is refused with auth proxy, which adds the key to every request: only placeholder reads it", async () => {
    expect(
      await problems(
        `templates:\n  t:\n    agents:\n      c: { package: claude-code, ${key}, auth: proxy, api: { hosts: [api.example.com] } }\n`,
      ),
    ).toEqual([
      expect.stringMatching(
        /^6:100: templates\.t\.agents\.c\.api\.hosts: api\.hosts lists the hosts auth "placeholder" swaps the stand-in for the key on, and this agent's auth is "proxy", .*set auth "placeholder", or remove api\.hosts$/,
      ),
    ]);
  });

  it("is read with auth placeholder", async () => {
    const { model } = await load(
      `templates:\n  t:\n    agents:\n      c: { package: claude-code, ${key}, auth: placeholder, api: { hosts: [api.example.com, "*.example.org"] } }\n`,
    );
    expect(model.templates[0]?.agents[0]?.api?.hosts).toEqual(["api.example.com", "*.example.org"]);
  });
});

describe("a template's useProxy", () => {
  it("is noted as having no effect where no agent has a key or login it would put behind the proxy", async () => {
    const { notes } = await load(
      `templates:\n  t:\n    useProxy: true\n    agents:\n      c: { package: claude-code, hostConfigDir: ~/.claude }\n      d: { package: codex, secretName: a, authEnvVar: OPENAI_API_KEY, auth: wrapper }\n`,
    );
    expect(notes).toEqual([
      expect.stringMatching(
        /^5:5: templates\.t\.useProxy: note: useProxy has no effect here: .*no agent of this template has one without its own auth; remove it, or give an agent a key or a login$/,
      ),
    ]);
  });

  it("is not noted where it makes an agent's auth proxy, in the template or one extending it", async () => {
    const { notes, model } = await load(
      `templates:\n  base: { useProxy: true }\n  t:\n    extends: base\n    agents:\n      c: { package: claude-code, ${key} }\n`,
    );
    expect(notes).toEqual([]);
    expect(model.templates.find((t) => t.name === "t")?.agents[0]?.auth).toBe("proxy");
  });
});

describe("a template's proxyFilter", () => {
  it("is refused where no agent goes by the proxy", async () => {
    expect(
      await problems(
        `templates:\n  t:\n    agents:\n      c: { package: claude-code, ${key} }\n    proxyFilter: { methods: [POST] }\n`,
      ),
    ).toEqual([
      expect.stringMatching(
        /templates\.t\.proxyFilter: proxyFilter limits what the API proxy forwards for the agents of template "t", and none of them goes by the proxy .*: remove proxyFilter, or put an agent with a key behind the proxy/,
      ),
    ]);
  });

  it("is read where one does", async () => {
    const { model } = await load(
      `templates:\n  t:\n    useProxy: true\n    agents:\n      c: { package: claude-code, ${key} }\n    proxyFilter: { methods: [POST] }\n`,
    );
    expect(model.templates[0]?.proxyFilter.methods).toEqual(["POST"]);
  });
});

describe("proxy.enable", () => {
  const proxied = `templates:\n  t:\n    agents:\n      c: { package: claude-code, ${key}, auth: proxy }\n`;
  const wrapped = `templates:\n  t:\n    agents:\n      c: { package: claude-code, ${key} }\n`;

  it("defaults to whether an agent goes by the proxy, which is when the daemon runs it", async () => {
    for (const [yaml, runs] of [
      [proxied, true],
      [wrapped, false],
    ] as const) {
      const { model } = await load(yaml);
      expect(model.host.proxy.enable).toBe(runs);
      expect(proxyNeeded(model)).toBe(runs);
    }
  });

  it("false is refused beside an agent that goes by the proxy, naming it", async () => {
    expect(await problems(`proxy: { enable: false }\n${proxied}`)).toEqual([
      expect.stringMatching(
        /^3:\d+: proxy\.enable: the API proxy must run: agent "c" of template "t" goes by it .*remove proxy\.enable: false \(the proxy runs exactly when an agent needs it\), or give those agents auth "wrapper"$/,
      ),
    ]);
    const { model, notes } = await load(`proxy: { enable: false }\n${wrapped}`);
    expect(notes).toEqual([]);
    expect(proxyNeeded(model)).toBe(false);
  });

  it("true without an agent behind the proxy is noted as having no effect, and no proxy runs", async () => {
    const { model, notes } = await load(`proxy: { enable: true }\n${wrapped}`);
    expect(notes).toEqual([
      expect.stringMatching(
        /^3:10: proxy\.enable: note: proxy\.enable has no effect: no agent goes by the API proxy .*does not run; remove it/,
      ),
    ]);
    expect(model.host.proxy.enable).toBe(false);
    expect(proxyNeeded(model)).toBe(false);
    expect((await load(`proxy: { enable: true }\n${proxied}`)).notes).toEqual([]);
  });
});

describe("monitor.autoRestart", () => {
  it("is refused without monitor.enable: only the daemon's monitor restarts", async () => {
    expect(await problems(`monitor: { autoRestart: true }\ntemplates: { t: { network: none } }\n`)).toEqual([
      expect.stringMatching(
        /^3:\d+: monitor\.autoRestart: autoRestart restarts the sandboxes the daemon's monitor finds unhealthy, and monitor\.enable is off: set monitor\.enable: true, or remove autoRestart$/,
      ),
    ]);
    expect(
      (await load(`monitor: { enable: true, autoRestart: true }\ntemplates: { t: { network: none } }\n`)).model.host
        .monitor,
    ).toMatchObject({ enable: true, autoRestart: true });
  });
});
