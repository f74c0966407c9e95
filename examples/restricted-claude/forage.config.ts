// A single Claude Code template whose sandboxes reach only Anthropic's API and GitHub.
import { defineConfig } from "forage";

export default defineConfig({
  user: "alice",
  // Only the path is recorded; the key itself never enters the Nix store or a generated file.
  secrets: { "anthropic-api-key": "/run/secrets/anthropic-api-key" },
  templates: {
    claude: {
      description: "Claude Code with access to its API and GitHub only",
      agents: {
        claude: {
          package: "claude-code",
          secretName: "anthropic-api-key",
          authEnvVar: "ANTHROPIC_API_KEY",
          permissions: { allow: ["Bash(npm test:*)", "Edit", "Read"], deny: ["Bash(curl:*)"] },
        },
      },
      extraPackages: ["nodejs_22", "python3Packages.black"],
      network: { mode: "restricted", allow: ["api.anthropic.com", "*.github.com:443", "github.com:443"] },
      resourceLimits: { cpuQuota: "200%", memoryMax: "4G", tasksMax: 512 },
      initCommands: ["npm ci --ignore-scripts"],
    },
  },
});
