// A LoRA / QLoRA training step's own figures (the response's finetune object, with the memory
// its frozen base and its adapters take): what trains, what is frozen, and the core's assumptions
// (among them that MFU counts full training's FLOPs). Draws what it is given.
import { byId, clear, h, setText } from './dom';
import type { AnyForecast, LoraTargets } from './engine';
import { isMegatron } from './engine';
import { fmtNum } from './format';
import { gb } from './memory_bar';
import { isTrainingMemory } from './train_view';

export const METHOD_NAME: Record<string, string> = { lora: 'LoRA', qlora: 'QLoRA' };
export const TARGET_WORDS: Record<LoraTargets, string> = {
  attention: 'the attention projections (q, k, v, o)',
  all_linear: 'every linear of the blocks (not the LM head)',
};

// "41.94 M", "8.03 B": a parameter count in words.
export function paramCount(n: number): string {
  if (n >= 1e9) return `${fmtNum(n / 1e9)} B`;
  if (n >= 1e6) return `${fmtNum(n / 1e6)} M`;
  if (n >= 1e3) return `${fmtNum(n / 1e3)} k`;
  return fmtNum(n);
}

// "LoRA rank 16 on the attention projections (q, k, v, o)": the setting in words.
export function finetuneWords(f: AnyForecast): string {
  if (isMegatron(f) || !f.finetune) return '';
  const t = f.finetune;
  return `${METHOD_NAME[t.method]} rank ${t.rank} on ${TARGET_WORDS[t.targets]}`;
}

export function renderFinetune(f: AnyForecast): void {
  const panel = byId('finetune-panel');
  const t = isMegatron(f) ? undefined : f.finetune;
  panel.hidden = !t;
  panel.dataset.method = t?.method ?? '';
  if (!t || isMegatron(f)) return;
  setText(byId('finetune-heading'), `${METHOD_NAME[t.method]} fine-tuning`);
  const m = f.memory && isTrainingMemory(f.memory) ? f.memory : undefined;
  const all = t.trainable_params + t.frozen_params;
  const rows: [key: string, label: string, text: string, value: number | string][] = [
    ['method', 'Method', METHOD_NAME[t.method], t.method],
    ['rank', 'Rank', String(t.rank), t.rank],
    ['targets', 'Adapters on', TARGET_WORDS[t.targets], t.targets],
    ['adapted_linears', 'Adapted linears (repeats counted)', String(t.adapted_linears), t.adapted_linears],
    [
      'trainable_params',
      'Trainable parameters (the adapters)',
      `${paramCount(t.trainable_params)} (${fmtNum((100 * t.trainable_params) / all)}% of all)`,
      t.trainable_params,
    ],
    ['frozen_params', 'Frozen parameters (the base model)', paramCount(t.frozen_params), t.frozen_params],
  ];
  if (m) {
    const base =
      t.method === 'qlora'
        ? "the blocks' linears in NF4, the rest in the compute precision"
        : 'in the compute precision';
    rows.push(
      ['weights_gb', `Weights: frozen base (${base}) and adapters`, gb(m.weights_gb), m.weights_gb],
      ['gradients_gb', "Gradients (the adapters')", gb(m.gradients_gb), m.gradients_gb],
      ['optimizer_gb', "Optimizer states (the adapters' Adam)", gb(m.optimizer_gb), m.optimizer_gb],
    );
  }
  const table = byId<HTMLTableElement>('finetune-table');
  clear(table);
  const tbody = h('tbody');
  for (const [key, label, text, v] of rows)
    tbody.append(
      h(
        'tr',
        { 'data-key': key },
        h('th', { scope: 'row' }, label),
        h('td', { class: typeof v === 'number' ? 'num' : undefined, 'data-value': String(v) }, text),
      ),
    );
  table.append(h('caption', { class: 'sr-only' }, 'The fine-tuning: what trains, what is frozen, their memory'), tbody);
  const list = byId('finetune-assumptions');
  clear(list);
  for (const a of t.assumptions) list.append(h('li', {}, a));
}
