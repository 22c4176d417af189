// The calculator's entry point. The page is made of: boot.ts (link, engine, first
// render), store.ts (the one update path), render.ts (the one render), inputs.ts
// (handlers), link.ts (the link), embed.ts (the ?embed=1 card), memo.ts and
// jobs.ts (forecasts remembered by request; many at once off the input path).
import './style.css';
import { boot } from './boot';

void boot();
