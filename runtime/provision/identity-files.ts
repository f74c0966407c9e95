/**
 * The sandbox's commit identity as the agent's own git and jj configuration (home-relative path →
 * text), seeded into its home at each start. Every process then has it, also the agent session a
 * NixOS root starts by itself, which no environment from forage-ctl reaches. The values were
 * checked at up (no newline, no '<' or '>'); quoting keeps '"', '\', '#' and ';' literal.
 *
 * @example identityHomeFiles({ gitUser: 'Ann "A" Lee' })[".gitconfig"] // '[user]\n\tname = "Ann \\"A\\" Lee"\n'
 */
export function identityHomeFiles(identity: {
  gitUser?: string | undefined;
  gitEmail?: string | undefined;
}): Record<string, string> {
  const fields = [
    ["name", identity.gitUser],
    ["email", identity.gitEmail],
  ].filter((field): field is [string, string] => field[1] !== undefined);
  if (fields.length === 0) return {};
  return {
    ".gitconfig": `[user]\n${fields.map(([key, value]) => `\t${key} = ${gitConfigString(value)}\n`).join("")}`,
    // A TOML basic string: JSON's escapes are TOML's (the values hold no control characters).
    ".config/jj/config.toml": `[user]\n${fields.map(([key, value]) => `${key} = ${JSON.stringify(value)}\n`).join("")}`,
  };
}

/** A git config value in double quotes, where only '\' and '"' need escaping. */
function gitConfigString(value: string): string {
  return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}
