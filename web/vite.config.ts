import { defineConfig } from 'vite';

// A static site: relative asset paths so web/dist/ works from any folder of any host.
// The WebAssembly forecaster is not bundled: scripts/build_web.sh copies it into
// public/tilecast/ and the page imports it at run time.
export default defineConfig({
  base: './',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
  // The forecaster's worker (src/core_worker.ts) is an ES module, like the page.
  worker: { format: 'es' },
});
