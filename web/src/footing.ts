// What a forecast stands on, in one word, so forecasts of unequal footing are never set side
// by side unmarked: learned (the GPU's vendor and architecture among the learned models'
// training GPUs), transferred (the learned models applied to a vendor or architecture never
// measured), partly roofline (kernels no learned model covers forecast by the roofline),
// roofline only (the roofline predictor). The core decides it once (every forecast response's
// `footing`, tilecast/footing.hpp); the page only words it.
import type { Footing as CoreFooting } from './generated/api';

export type Footing = 'learned' | 'transferred' | 'partly roofline' | 'roofline only';

const WORDS: Record<CoreFooting, Footing> = {
  learned: 'learned',
  transferred: 'transferred',
  partly_roofline: 'partly roofline',
  roofline: 'roofline only',
};

export function footing(f: { footing: CoreFooting }): Footing {
  return WORDS[f.footing];
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
