import * as fs from 'node:fs';
import react from '@vitejs/plugin-react';
import { createServer, defineConfig, type Plugin } from 'vite';

// The config lives in apps/admin; resolve paths from here so `vite build` works from any working directory.
const here = decodeURIComponent(new URL('.', import.meta.url).pathname);

/**
 * Writes the console's catalogues to dist/lang/{locale}.json after the build (served at GET /api/lang/{locale}.json,
 * spec 7), from the same catalogue files the bundle carries, loaded through Vite's SSR loader.
 */
function langFiles(): Plugin {
  return {
    name: 'switchboard-lang-files',
    apply: 'build',
    async closeBundle() {
      const loader = await createServer({ root: here, configFile: false, logLevel: 'error', server: { middlewareMode: true, hmr: false, watch: null }, appType: 'custom', optimizeDeps: { noDiscovery: true } });
      try {
        const mod = (await loader.ssrLoadModule('/src/i18n/lang-files.ts')) as { langFiles: () => Record<string, unknown> };
        fs.mkdirSync(`${here}dist/lang`, { recursive: true });
        for (const [locale, catalogue] of Object.entries(mod.langFiles())) fs.writeFileSync(`${here}dist/lang/${locale}.json`, JSON.stringify(catalogue));
      } finally {
        await loader.close();
      }
    },
  };
}

export default defineConfig({
  root: here,
  base: '/',
  plugins: [react(), langFiles()],
  build: {
    outDir: `${here}dist`,
    emptyOutDir: true,
    chunkSizeWarningLimit: 2000,
  },
  server: {
    port: 5173,
    proxy: {
      '/api': { target: 'http://127.0.0.1:3000', changeOrigin: true },
      '/realtime': { target: 'http://127.0.0.1:3000', changeOrigin: true, ws: true },
      '/sso': { target: 'http://127.0.0.1:3000', changeOrigin: true },
    },
  },
});
