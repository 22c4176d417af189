// What a forecast stands on, in one word, so forecasts of unequal footing are never set side
// by side unmarked: learned (the GPU's vendor and architecture among the learned models'
// training GPUs), transferred (the learned models applied to a vendor or architecture never
// measured), partly roofline (kernels no learned model covers forecast by the roofline),
// roofline only (the roofline predictor). Read from the predictor and the core's caveats
// (core/src/forecast/caveats.cpp: "No <architecture> GPU was measured…", "The learned kernel
// models were trained on <vendors>…", "No learned <type> model covers…").
export type Footing = 'learned' | 'transferred' | 'partly roofline' | 'roofline only';

export function footing(f: { predictor: string; caveats?: string[] }): Footing {
  if (f.predictor === 'roofline') return 'roofline only';
  const c = f.caveats ?? [];
  if (c.some((x) => /^No .* GPU was measured|^The learned kernel models were trained on/.test(x))) return 'transferred';
  if (c.some((x) => /^No learned \w+ model covers/.test(x))) return 'partly roofline';
  return 'learned';
}

// A chart label's mark (labels stay short beside the bars): nothing for a learned forecast.
const MARKS: Record<Footing, string> = {
  learned: '',
  transferred: ' †',
  'partly roofline': ' ‡',
  'roofline only': ' ◇',
};

export function footingMark(k: Footing): string {
  return MARKS[k];
}

// The marks' key, for the charts that carry them.
export const FOOTING_KEY =
  '† transferred: the learned models applied to a vendor or architecture never measured; ‡ partly roofline: kernels no learned model covers forecast by the roofline; ◇ roofline only.';
