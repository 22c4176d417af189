// The headless Chromium that the browser tests and bench/web_bench.mjs launch (Debian's, or
// CHROMIUM): its path, the flags both pass, and the omnibox popup left out. Headless Chromium 156
// builds that popup (a WebUI renderer of its own, about 1 s of CPU) for every new context's window,
// beside the page under test; a user's navigation in an open window does not (docs/build.md).
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
export const BASE_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];
export const NO_OMNIBOX_POPUP = '--disable-features=WebUIOmniboxPopup,WebUIOmniboxFullPopup,WebUIOmniboxAimPopup';
