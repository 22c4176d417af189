// Number formatting shared by the views, the embed card and the exports.
const sig = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 4 });
const whole = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  if (Math.abs(ms) < SMALL) return `${fmtNum(ms)} ms`;
  if (ms >= 10_000) return `${sig.format(ms / 1000)} s`;
  return `${sig.format(ms)} ms`;
}

export function fmtRate(v: number): string {
  if (!Number.isFinite(v)) return '—';
  return v >= 10_000 ? whole.format(v) : sig.format(v);
}

// Below this a figure is floating-point noise at every scale the page shows (ms, GB, %, ×):
// it reads 0, never "0.00000000000004097".
const NOISE = 1e-9;

// Below this a figure shows as "< 0.001" (four significant digits of 0.0000123 are noise to a reader).
const SMALL = 1e-3;

export function fmtNum(v: number): string {
  if (!Number.isFinite(v)) return '—';
  if (Math.abs(v) < NOISE) return '0';
  if (Math.abs(v) < SMALL) return v < 0 ? '> −0.001' : '< 0.001';
  return sig.format(v);
}

export function fmtPct(v: number): string {
  return Number.isFinite(v) ? `${v.toFixed(1)}%` : '—';
}

// A count with an SI prefix, four significant digits: 1.235 T, 56.7 M, 812 (FLOPs, bytes).
const PREFIXES: [number, string][] = [
  [1e15, 'P'],
  [1e12, 'T'],
  [1e9, 'G'],
  [1e6, 'M'],
  [1e3, 'k'],
];
export function fmtSi(v: number): string {
  if (!Number.isFinite(v)) return '—';
  const a = Math.abs(v);
  for (const [scale, p] of PREFIXES) if (a >= scale) return `${sig.format(v / scale)} ${p}`;
  return fmtNum(v);
}
