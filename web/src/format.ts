// Number formatting shared by the views, the embed card and the exports.
const sig = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 4 });
const whole = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  if (ms >= 10_000) return `${sig.format(ms / 1000)} s`;
  return `${sig.format(ms)} ms`;
}

export function fmtRate(v: number): string {
  if (!Number.isFinite(v)) return '—';
  return v >= 10_000 ? whole.format(v) : sig.format(v);
}

export function fmtNum(v: number): string {
  return Number.isFinite(v) ? sig.format(v) : '—';
}

export function fmtPct(v: number): string {
  return Number.isFinite(v) ? `${v.toFixed(1)}%` : '—';
}
