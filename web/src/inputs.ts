// The inputs: each handler reads its control and hands the change to update();
// nothing here draws. Text fields are left as typed (render never rewrites them).
import { gpuById, type App } from './app';
import { wireControls } from './controls';
import { byId } from './dom';
import { errorMessage } from './engine';
import { download } from './export';
import { viewExport } from './export_view';
import {
  buildCustomGpuForm,
  fillCustomGpuForm,
  gpuOptionIds,
  MAX_CONFIG_BYTES,
  parseConfigText,
  readCustomGpuForm,
  tooLong,
  validateCustomGpu,
} from './pickers';
import {
  BATCH_MAX,
  CAPACITY_GPUS_MAX,
  CUSTOM,
  LORA_RANK_MAX,
  LOAD_POINTS_MAX,
  LOAD_POINTS_MIN,
  LOAD_QPS_MAX,
  LOAD_REQUESTS_MAX,
  LOAD_REQUESTS_MIN,
  LOAD_RANGE_RATIO_MAX,
  LOAD_EP_MAX,
  LOAD_SEED_MAX,
  rangeRatioOf,
  MODES,
  PAR_MAX,
  PRICE_MAX,
  SIZES,
  SIZE_KEYS,
  SIZE_MAX,
  SEQ_MAX,
  SLO_MS_MAX,
  SWEEP_MAX,
  TOKENS_MAX,
  TP_MAX,
  VIEWS,
  clip,
  formatTokens,
  parseTokens,
  type NumberKey,
  type View,
} from './state';
import type { Mode, ModelSizes } from './engine';
import { h } from './dom';
import { buildOperatorPanels } from './operators_view';
import { planKey, planRequests } from './plan_view';
import { update } from './store';

// The controls' starting values, from the state (once, at boot).
export function fillInputs(app: App): void {
  const s = app.state;
  byId<HTMLInputElement>('batch').value = String(s.batch);
  byId<HTMLInputElement>('seq').value = String(s.seq);
  byId<HTMLInputElement>('sweep-max').value = String(s.sweepMax);
  byId<HTMLInputElement>('prompt').value = String(s.prompt);
  byId<HTMLInputElement>('output').value = String(s.output);
  byId<HTMLInputElement>('tp').value = String(s.tp);
  byId<HTMLInputElement>('load-qps').value = s.loadMaxQps > 0 ? String(s.loadMaxQps) : '';
  byId<HTMLInputElement>('load-points').value = String(s.loadPoints);
  byId<HTMLInputElement>('load-requests').value = String(s.loadRequests);
  byId<HTMLInputElement>('load-seed').value = String(s.loadSeed);
  byId<HTMLInputElement>('load-range').value = String(s.loadRangeRatio);
  byId<HTMLInputElement>('load-ep').value = String(s.loadEp);
  byId<HTMLInputElement>('slo-ttft').value = String(s.sloTtftMs);
  byId<HTMLInputElement>('slo-tpot').value = String(s.sloTpotMs);
  byId<HTMLInputElement>('capacity-qps').value = s.capacityQps > 0 ? String(s.capacityQps) : '';
  byId<HTMLInputElement>('capacity-price').value = s.capacityPrice > 0 ? String(s.capacityPrice) : '';
  byId<HTMLInputElement>('capacity-max').value = String(s.capacityMaxGpus);
  byId<HTMLInputElement>('dp').value = String(s.dp);
  byId<HTMLInputElement>('train-tp').value = String(s.trainTp);
  byId<HTMLInputElement>('pp').value = String(s.pp);
  byId<HTMLInputElement>('microbatches').value = String(s.microbatches);
  byId<HTMLInputElement>('cp').value = String(s.cp);
  byId<HTMLInputElement>('ep').value = String(s.ep);
  byId<HTMLInputElement>('vpp').value = String(s.virtualStages);
  byId<HTMLInputElement>('train-tokens').value = s.tokens > 0 ? formatTokens(s.tokens) : '';
  byId<HTMLInputElement>('lora-rank').value = String(s.loraRank);
  if (s.model === SIZES && s.modelSizes) {
    fillSizesForm(s.modelSizes);
    byId<HTMLDetailsElement>('sizes-model').open = true;
  }
  const system = byId<HTMLSelectElement>('train-system');
  system.append(h('option', { value: '' }, 'Automatic: the catalog system built from the GPU'));
  for (const x of app.systems) system.append(h('option', { value: x.id }, x.name));
  if (s.model === CUSTOM && s.customModel)
    byId<HTMLTextAreaElement>('model-config').value = JSON.stringify(s.customModel, null, 2);
  buildCustomGpuForm();
  const startGpu = s.gpu === CUSTOM && s.customGpu ? s.customGpu : gpuById(app, s.gpu);
  if (startGpu) fillCustomGpuForm(startGpu);
  if (s.gpu === CUSTOM) byId<HTMLDetailsElement>('custom-gpu').open = true;
  if (s.model === CUSTOM) byId<HTMLDetailsElement>('custom-model').open = true;
}

// The sizes form: each size's input is sz-<link key> (state.ts SIZE_KEYS).
function fillSizesForm(m: ModelSizes): void {
  for (const [k, f] of SIZE_KEYS) byId<HTMLInputElement>(`sz-${k}`).value = m[f] === undefined ? '' : String(m[f]);
  byId<HTMLSelectElement>('sz-mlp').value = m.mlp;
  byId<HTMLSelectElement>('sz-pos').value = m.positions;
}

const SIZE_OPTIONAL = new Set<keyof ModelSizes>(['query_groups', 'ffn', 'seq']);

// The form's sizes, or an error naming the first that cannot be read (the core checks the rest).
function readSizesForm(): ModelSizes {
  const m: Partial<ModelSizes> = {};
  for (const [k, f, words] of SIZE_KEYS) {
    const raw = byId<HTMLInputElement>(`sz-${k}`).value.trim();
    if (raw === '' && SIZE_OPTIONAL.has(f)) continue;
    const label = words.replace(/^./, (c) => c.toUpperCase());
    (m as Record<string, number>)[f] = readWholeNumber(`sz-${k}`, label, 1, SIZE_MAX);
  }
  const mlp = byId<HTMLSelectElement>('sz-mlp').value;
  const pos = byId<HTMLSelectElement>('sz-pos').value;
  return {
    ...m,
    mlp: mlp === 'gelu' ? 'gelu' : 'swiglu',
    positions: pos === 'learned' ? 'learned' : 'rotary',
  } as ModelSizes;
}

// A positive number with at most six decimals ("12.5"), at most `max` (what a link carries exactly).
function readPositive(field: string | HTMLInputElement, label: string, max: number): number {
  const raw = (typeof field === 'string' ? byId<HTMLInputElement>(field) : field).value.trim();
  const v = Number(raw);
  if (!/^\d{1,9}(\.\d{1,6})?$/.test(raw) || !(v > 0) || v > max)
    throw new Error(
      `${label} must be a number above 0 and at most ${max.toLocaleString('en-US')} (six decimals at most).`,
    );
  return v;
}

// A range ratio as a link carries it (state.ts, rangeRatioOf).
function readRangeRatio(id: string, label: string): number {
  const v = rangeRatioOf(byId<HTMLInputElement>(id).value.trim());
  if (v === null)
    throw new Error(`${label} must be a number from 0 to ${LOAD_RANGE_RATIO_MAX} (two decimals at most).`);
  return v;
}

function readWholeNumber(id: string, label: string, min: number, max: number): number {
  const raw = byId<HTMLInputElement>(id).value.trim();
  const range = `${min.toLocaleString('en-US')} to ${max.toLocaleString('en-US')}`;
  if (!/^\d+$/.test(raw)) throw new Error(`${label} must be a whole number from ${range}.`);
  const v = Number(raw);
  if (v < min || v > max) throw new Error(`${label} must be a whole number from ${range}.`);
  return v;
}

export function wireInputs(app: App): void {
  wireControls(() => app.state);
  wireGpu(app);
  wireModel(app);
  wireOperators();
  wireSizes();
  wireWorkload(app);
  wireServe(app);
  wireLoad(app);
  wireCapacity(app);
  wireComparePrices(app);
  wireTraining(app);
  wireFinetune(app);
  wireViews(app);
  wireShare(app);
}

function wireGpu(app: App): void {
  const search = byId<HTMLInputElement>('gpu-search');
  search.addEventListener('input', () => {
    // The selection follows the search when the current GPU no longer matches.
    const ids = gpuOptionIds(app, search.value);
    const gpu = ids.length && !ids.includes(app.state.gpu) ? ids[0] : app.state.gpu;
    update({ gpu, ui: { gpuQuery: search.value } }, true);
  });
  const select = byId<HTMLSelectElement>('gpu-select');
  select.addEventListener('change', () => {
    if (select.value) update({ gpu: select.value });
  });
  byId('custom-gpu-fill').addEventListener('click', () => {
    const s = app.state;
    const g = s.gpu === CUSTOM ? s.customGpu : gpuById(app, s.gpu);
    if (g) fillCustomGpuForm(g);
  });
  byId('custom-gpu-use').addEventListener('click', () => {
    try {
      const spec = validateCustomGpu(app, readCustomGpuForm());
      delete spec.id;
      update({ customGpu: spec, gpu: CUSTOM, ui: { customGpuError: '' } });
    } catch (e) {
      update({ ui: { customGpuError: errorMessage(e) } });
    }
  });
}

// The per-operator tables' order (the forecast view's and the serve view's decode step, one
// setting): a page setting, not part of the link.
function wireOperators(): void {
  buildOperatorPanels((opsSort) => update({ ui: { opsSort } }));
}

function wireModel(app: App): void {
  const select = byId<HTMLSelectElement>('model-select');
  select.addEventListener('change', () => update({ model: select.value }));
  const box = byId<HTMLTextAreaElement>('model-config');
  const useConfig = (text: string) => {
    try {
      update({ customModel: parseConfigText(app, text), model: CUSTOM, ui: { configError: '' } });
    } catch (e) {
      update({ ui: { configError: errorMessage(e) } });
    }
  };
  byId('model-config-use').addEventListener('click', () => useConfig(box.value));
  // A paste larger than a config can be is refused before the text box takes it (a 50 MB
  // paste would freeze the tab); any new text clears the last config's error.
  box.addEventListener('paste', (e) => {
    const pasted = e.clipboardData?.getData('text') ?? '';
    if (pasted.length > MAX_CONFIG_BYTES) {
      e.preventDefault();
      update({ ui: { configError: tooLong(pasted.length, 'characters') } });
    }
  });
  box.addEventListener('input', () => {
    if (app.ui.configError) update({ ui: { configError: '' } });
  });
  // An uploaded or dropped file: its size checked before it is read.
  const useFile = async (f: File) => {
    if (f.size > 1 << 20) {
      update({ ui: { configError: `${clip(f.name)} is ${f.size} bytes; at most ${1 << 20} are accepted.` } });
      return;
    }
    const text = await f.text();
    box.value = text;
    useConfig(text);
  };
  const file = byId<HTMLInputElement>('model-config-file');
  file.addEventListener('change', () => {
    const f = file.files?.[0];
    file.value = '';
    if (f) void useFile(f);
  });
  // A config.json dropped anywhere on the config panel (a file, or text dragged from elsewhere).
  const panel = byId<HTMLDetailsElement>('custom-model');
  panel.addEventListener('dragover', (e) => {
    e.preventDefault();
    panel.classList.add('drop-target');
  });
  panel.addEventListener('dragleave', () => panel.classList.remove('drop-target'));
  panel.addEventListener('drop', (e) => {
    e.preventDefault();
    panel.classList.remove('drop-target');
    panel.open = true;
    const f = e.dataTransfer?.files?.[0];
    if (f) {
      void useFile(f);
      return;
    }
    const text = e.dataTransfer?.getData('text') ?? '';
    if (text.length > MAX_CONFIG_BYTES) {
      update({ ui: { configError: tooLong(text.length, 'characters') } });
      return;
    }
    box.value = text;
    useConfig(text);
  });
}

// A model by its sizes: read here, checked by the core when forecast (its message beside the form).
function wireSizes(): void {
  byId('sizes-use').addEventListener('click', () => {
    try {
      update({ modelSizes: readSizesForm(), model: SIZES, ui: { sizesError: '' } });
    } catch (e) {
      update({ ui: { sizesError: errorMessage(e) } });
    }
  });
}

function wireWorkload(app: App): void {
  for (const r of document.querySelectorAll<HTMLInputElement>('input[name="mode"]')) {
    r.addEventListener('change', () => {
      if (r.checked && (MODES as string[]).includes(r.value)) update({ mode: r.value as Mode });
    });
  }
  const onWorkload = () => {
    let batch: number;
    try {
      batch = readWholeNumber('batch', 'Batch size', 1, BATCH_MAX);
    } catch (e) {
      update({ ui: { batchInvalid: true, workloadError: errorMessage(e) } }, true);
      return;
    }
    try {
      const seq = readWholeNumber('seq', 'Sequence length', 1, SEQ_MAX);
      const ok = { batchInvalid: false, seqInvalid: false, workloadError: '' };
      update(batch === app.state.batch && seq === app.state.seq ? { ui: ok } : { batch, seq, ui: ok }, true);
    } catch (e) {
      update({ ui: { batchInvalid: false, seqInvalid: true, workloadError: errorMessage(e) } }, true);
    }
  };
  byId('batch').addEventListener('input', onWorkload);
  byId('seq').addEventListener('input', onWorkload);
  byId<HTMLFormElement>('inputs').addEventListener('submit', (e) => e.preventDefault());
}

// The serve view's inputs: prompt, output and GPU count typed (an unreadable one
// leaves the forecast on screen, dimmed, saying why), precision and engine chosen.
function wireServe(app: App): void {
  wireGroup(app, 'serveError', [
    ['prompt', 'prompt', (id) => readWholeNumber(id, 'Prompt tokens', 1, TOKENS_MAX)],
    ['output', 'output', (id) => readWholeNumber(id, 'Output tokens', 1, TOKENS_MAX)],
    ['tp', 'tp', (id) => readWholeNumber(id, 'Tensor-parallel GPUs', 1, TP_MAX)],
  ]);
}

// The serve view's load sweep: the largest rate (empty: from the forecast), the rates, requests
// per rate, seed, length spread, expert-parallel GPUs (1: off) and the SLO typed; one that cannot
// be read leaves the last plot, dimmed, saying why.
function wireLoad(app: App): void {
  wireGroup(app, 'loadError', [
    [
      'load-qps',
      'loadMaxQps',
      (id) => (byId<HTMLInputElement>(id).value.trim() === '' ? 0 : readPositive(id, 'Largest rate', LOAD_QPS_MAX)),
    ],
    ['load-points', 'loadPoints', (id) => readWholeNumber(id, 'Rates simulated', LOAD_POINTS_MIN, LOAD_POINTS_MAX)],
    [
      'load-requests',
      'loadRequests',
      (id) => readWholeNumber(id, 'Requests per rate', LOAD_REQUESTS_MIN, LOAD_REQUESTS_MAX),
    ],
    ['load-seed', 'loadSeed', (id) => readWholeNumber(id, 'Arrival seed', 0, LOAD_SEED_MAX)],
    ['load-range', 'loadRangeRatio', (id) => readRangeRatio(id, 'The length spread')],
    ['load-ep', 'loadEp', (id) => readWholeNumber(id, 'Expert-parallel GPUs', 1, LOAD_EP_MAX)],
    ['slo-ttft', 'sloTtftMs', (id) => readPositive(id, 'The TTFT SLO (ms)', SLO_MS_MAX)],
    ['slo-tpot', 'sloTpotMs', (id) => readPositive(id, 'The TPOT SLO (ms)', SLO_MS_MAX)],
  ]);
}

// Fields read together on every keystroke in any of them, each into its state field: one that
// cannot be read is marked and its message goes to the group's error (the state keeps its last
// values); all read, the fields whose value changed are updated and the error cleared.
type GroupError = 'serveError' | 'loadError' | 'capacityError' | 'trainError' | 'finetuneError';
function wireGroup(app: App, error: GroupError, fields: [string, NumberKey, (id: string) => number][]): void {
  const onInput = () => {
    const patch: Partial<Record<NumberKey, number>> = {};
    for (const [id, field, read] of fields) {
      try {
        const v = read(id);
        byId(id).setAttribute('aria-invalid', 'false');
        if (v !== app.state[field]) patch[field] = v;
      } catch (e) {
        byId(id).setAttribute('aria-invalid', 'true');
        update({ ui: { [error]: errorMessage(e) } }, true);
        return;
      }
    }
    update({ ...patch, ui: { [error]: '' } }, true);
  };
  for (const [id] of fields) byId(id).addEventListener('input', onInput);
}

// The capacity plan's rate (empty: no plan), price (empty: none) and most GPUs typed; one that
// cannot be read leaves the last plan, dimmed, saying why.
// A compared GPU's price per GPU-hour, typed in its row of the serving comparison (empty: none):
// read when it is committed (Enter or leaving the field), since the table is drawn anew with it.
function wireComparePrices(app: App): void {
  byId('compare-table').addEventListener('change', (e) => {
    const input = e.target;
    if (!(input instanceof HTMLInputElement) || !input.classList.contains('gpu-price')) return;
    const id = input.dataset.gpu ?? '';
    const raw = input.value.trim();
    let v = 0;
    try {
      if (raw !== '') v = readPositive(input, 'A price per GPU-hour', PRICE_MAX);
    } catch (err) {
      input.setAttribute('aria-invalid', 'true');
      update({ ui: { comparePriceError: errorMessage(err) } }, true);
      return;
    }
    const { [id]: _old, ...rest } = app.state.comparePrices;
    update({ comparePrices: v > 0 ? { ...rest, [id]: v } : rest, ui: { comparePriceError: '' } });
  });
}

function wireCapacity(app: App): void {
  const optional = (id: string, label: string, max: number) =>
    byId<HTMLInputElement>(id).value.trim() === '' ? 0 : readPositive(id, label, max);
  wireGroup(app, 'capacityError', [
    ['capacity-qps', 'capacityQps', (id) => optional(id, 'The request rate to plan for', LOAD_QPS_MAX)],
    ['capacity-price', 'capacityPrice', (id) => optional(id, 'The price per GPU-hour', PRICE_MAX)],
    ['capacity-max', 'capacityMaxGpus', (id) => readWholeNumber(id, 'Most GPUs', 1, CAPACITY_GPUS_MAX)],
  ]);
}

// The model forecast's precision and torch.compile, and the multi-GPU training
// fields: counts typed (an unreadable one leaves the forecast on screen, dimmed,
// saying why), the rest chosen. The core checks that they fit the model and system.
function wireTraining(app: App): void {
  const count = (label: string) => (id: string) => readWholeNumber(id, label, 1, PAR_MAX);
  wireGroup(app, 'trainError', [
    ['dp', 'dp', count('Data-parallel GPUs')],
    ['train-tp', 'trainTp', count('Tensor-parallel GPUs')],
    ['pp', 'pp', count('Pipeline stages')],
    ['microbatches', 'microbatches', count('Micro-batches')],
    ['cp', 'cp', count('Context-parallel GPUs')],
    ['ep', 'ep', count('Expert-parallel GPUs')],
    ['vpp', 'virtualStages', count('Virtual stages')],
    [
      'train-tokens',
      'tokens',
      (id) => {
        const text = byId<HTMLInputElement>(id).value;
        try {
          return text.trim() === '' ? 0 : parseTokens(text);
        } catch (e) {
          throw new Error(`Tokens to train on: ${errorMessage(e)}`);
        }
      },
    ],
  ]);
  const zero = byId<HTMLSelectElement>('zero');
  zero.addEventListener('change', () => update({ zero: Math.min(3, Math.max(0, Number(zero.value) || 0)) }));
  const system = byId<HTMLSelectElement>('train-system');
  system.addEventListener('change', () => update({ system: system.value }));
  const bound = byId<HTMLInputElement>('plan-max-gpus');
  bound.addEventListener('input', () => {
    const v = Number(bound.value);
    const ok = bound.value.trim() === '' || (Number.isInteger(v) && v >= 1 && v <= 65536);
    bound.setAttribute('aria-invalid', String(!ok));
    if (ok) update({ ui: { planMaxGpus: bound.value.trim() === '' ? 0 : v } }, true);
  });
  byId('plan-find').addEventListener('click', () => {
    const { requests, why } = planRequests(app);
    update({ ui: { planWanted: requests.length ? planKey(requests) : `!${why}` } });
  });
}

// LoRA / QLoRA fine-tuning of the training step: the method and the adapters' linears chosen,
// the rank typed (an unreadable one leaves the forecast on screen, dimmed, saying why).
function wireFinetune(app: App): void {
  wireGroup(app, 'finetuneError', [
    ['lora-rank', 'loraRank', (id) => readWholeNumber(id, 'LoRA rank', 1, LORA_RANK_MAX)],
  ]);
}

function wireViews(app: App): void {
  // Tabs: click, or arrow keys / Home / End on the tab list.
  for (const v of VIEWS) byId(`tab-${v}`).addEventListener('click', () => update({ view: v }));
  byId('tabs').addEventListener('keydown', (e) => {
    const i = VIEWS.indexOf(app.state.view);
    let next = -1;
    if (e.key === 'ArrowRight') next = (i + 1) % VIEWS.length;
    else if (e.key === 'ArrowLeft') next = (i + VIEWS.length - 1) % VIEWS.length;
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = VIEWS.length - 1;
    if (next < 0) return;
    e.preventDefault();
    const view: View = VIEWS[next];
    update({ view });
    byId(`tab-${view}`).focus();
  });
  const compareSearch = byId<HTMLInputElement>('compare-search');
  compareSearch.addEventListener('input', () => update({ ui: { compareQuery: compareSearch.value } }, true));
  const compareWhat = byId<HTMLSelectElement>('compare-what');
  compareWhat.addEventListener('change', () => update({ compareServing: compareWhat.value === 'serving' }));
  byId('sweep-max').addEventListener('input', () => {
    try {
      update(
        { sweepMax: readWholeNumber('sweep-max', 'Largest batch size', 2, SWEEP_MAX), ui: { sweepError: '' } },
        true,
      );
    } catch (e) {
      update({ ui: { sweepError: errorMessage(e) } }, true);
    }
  });
}

function wireShare(app: App): void {
  const copy = async (text: string, button: HTMLElement) => {
    const label = button.textContent;
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = 'Copied';
    } catch {
      button.textContent = 'Select and copy the text below';
    }
    setTimeout(() => (button.textContent = label), 1500);
  };
  const link = () => byId<HTMLInputElement>('share-link').value;
  byId('copy-link').addEventListener('click', (e) => void copy(link(), e.currentTarget as HTMLElement));
  byId('copy-embed').addEventListener(
    'click',
    (e) => void copy(byId<HTMLTextAreaElement>('embed-snippet').value, e.currentTarget as HTMLElement),
  );
  // The exports are of the view on screen (export_view.ts).
  const save = (ext: 'csv' | 'json') => {
    const x = viewExport(app, link());
    if (x) download(`${x.stem}.${ext}`, ext === 'csv' ? 'text/csv' : 'application/json', x[ext]);
  };
  byId('export-csv').addEventListener('click', () => save('csv'));
  byId('export-json').addEventListener('click', () => save('json'));
  byId('download-config').addEventListener('click', () => {
    const c = app.state.customModel;
    if (c) download('config.json', 'application/json', JSON.stringify(c, null, 2) + '\n');
  });
}
