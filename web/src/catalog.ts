// The embedded GPU catalog and model zoo, grouped and searchable for the pickers.
import type { GpuSpec, ZooModel } from './engine';

// Newest generation first; unknown architectures follow in name order.
const ARCH_ORDER = [
  'Blackwell',
  'Hopper',
  'Ada Lovelace',
  'Ampere',
  'Turing',
  'Volta',
  'Pascal',
  'Maxwell',
  'Kepler',
  'CDNA 3',
  'CDNA 2',
  'CDNA',
  'RDNA 3',
  'RDNA 2',
];

export interface Group<T> {
  label: string;
  items: T[];
}

function archRank(arch: string): number {
  const i = ARCH_ORDER.indexOf(arch);
  return i < 0 ? ARCH_ORDER.length : i;
}

export function groupGpus(gpus: GpuSpec[]): Group<GpuSpec>[] {
  const groups = new Map<string, GpuSpec[]>();
  for (const g of gpus) {
    const label = `${g.vendor} · ${g.architecture || 'other'}`;
    if (!groups.has(label)) groups.set(label, []);
    groups.get(label)!.push(g);
  }
  const vendorRank = (v: string) => (v === 'NVIDIA' ? 0 : v === 'AMD' ? 1 : 2);
  return [...groups.entries()]
    .map(([label, items]) => ({ label, items: items.sort((a, b) => b.fp32_gflops - a.fp32_gflops) }))
    .sort((a, b) => {
      const ga = a.items[0],
        gb = b.items[0];
      return (
        vendorRank(ga.vendor) - vendorRank(gb.vendor) ||
        archRank(ga.architecture ?? '') - archRank(gb.architecture ?? '') ||
        a.label.localeCompare(b.label)
      );
    });
}

const squash = (s: string) => s.toLowerCase().replace(/[\s_-]+/g, '');

export function gpuMatches(g: GpuSpec, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean).map(squash);
  if (words.length === 0) return true;
  const hay = squash([g.id ?? '', g.name, g.vendor, g.architecture ?? '', ...(g.aliases ?? [])].join(' '));
  return words.every((w) => hay.includes(w));
}

// The picker's groups: the architecture table's family names (listModels' `family`).
export function groupModels(models: ZooModel[]): Group<ZooModel>[] {
  const groups = new Map<string, ZooModel[]>();
  for (const m of models) {
    const label = m.family;
    if (!groups.has(label)) groups.set(label, []);
    groups.get(label)!.push(m);
  }
  return [...groups.entries()].map(([label, items]) => ({
    label,
    items: items.sort((a, b) => a.params_b - b.params_b),
  }));
}

export function paramsText(b: number): string {
  if (!Number.isFinite(b)) return '';
  return b >= 1 ? `${+b.toPrecision(3)}B params` : `${Math.round(b * 1000)}M params`;
}
