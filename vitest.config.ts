import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        test: { name: "unit", include: ["test/**/*.test.ts"], exclude: ["test/integration/**"] },
      },
      {
        // Real sandboxes share host-wide names (network namespaces f<slot>), so these files run
        // one at a time.
        extends: true,
        test: { name: "integration", include: ["test/integration/**/*.test.ts"], fileParallelism: false },
      },
    ],
  },
});
