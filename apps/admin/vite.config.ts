import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The config lives in apps/admin; resolve paths from here so `vite build` works from any working directory.
const here = decodeURIComponent(new URL('.', import.meta.url).pathname);

export default defineConfig({
  root: here,
  base: '/',
  plugins: [react()],
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
