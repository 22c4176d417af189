// A memory bar: parts stacked against the GPU's capacity, with its legend (serve and train views).
import { byId, clear, h } from './dom';
import { fmtNum } from './format';
import { PALETTE, type Kind } from './palette';

// A part: its field in the response, its words, its kind (palette.ts gives the colour).
export type MemoryPart<K extends string> = readonly [key: K, label: string, kind: Kind];
export type MemoryTotals = { total_gb: number; capacity_gb: number; fits: boolean };

export function gb(x: number): string {
  return `${fmtNum(x)} GB`;
}

export function drawMemoryBar<K extends string>(
  barId: string,
  legendId: string,
  parts: readonly MemoryPart<K>[],
  m: MemoryTotals & Record<K, number>,
): void {
  const scale = Math.max(m.total_gb, m.capacity_gb);
  const bar = byId(barId);
  clear(bar);
  bar.classList.toggle('over', !m.fits);
  for (const [key, label, kind] of parts) {
    const seg = h('span', { class: 'seg', 'data-part': key, 'data-kind': kind, title: `${label}: ${gb(m[key])}` });
    seg.style.width = `${(100 * m[key]) / scale}%`;
    seg.style.background = PALETTE[kind];
    bar.append(seg);
  }
  const cap = h('span', { class: 'capacity', title: `Capacity: ${gb(m.capacity_gb)}, as the driver reports it` });
  cap.style.left = `${(100 * m.capacity_gb) / scale}%`;
  bar.append(cap);
  bar.dataset.total = String(m.total_gb);
  bar.dataset.capacity = String(m.capacity_gb);
  bar.dataset.fits = String(m.fits);
  bar.setAttribute(
    'aria-label',
    `Memory per GPU: ${parts.map(([k, l]) => `${l} ${gb(m[k])}`).join(', ')}; total ${gb(m.total_gb)} of ${gb(m.capacity_gb)}`,
  );
  const legend = byId(legendId);
  clear(legend);
  for (const [key, label, kind] of parts) {
    const swatch = h('span', { class: 'swatch', 'data-kind': kind });
    swatch.style.background = PALETTE[kind];
    legend.append(h('li', {}, swatch, `${label} ${gb(m[key])}`));
  }
}
