// The inputs: each handler reads its control and hands the change to update();
// nothing here draws. Text fields are left as typed (render never rewrites them).
import { gpuById, type App } from './app';
import { wireControls } from './controls';
import { byId } from './dom';
import { errorMessage } from './engine';
import { exportView, linkCodec } from './lazy';
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
  CUSTOM,
  LOAD_RANGE_RATIO_MAX,
  rangeRatioOf,
  MODES,
  PRICE_MAX,
  SIZES,
  SIZE_KEYS,
  SIZE_MAX,
  SEQ_MAX,
  SWEEP_MAX,
  VIEWS,
  clip,
  formatTokens,
  parseTokens,
  TYPED,
  type InputGroup,
  type NumberKey,
  type View,
} from './state';
import type { Mode, ModelSizes } from './engine';
import { h } from './dom';
import { buildOperatorPanels } from './operators_view';
import { planKey, planRequests } from './plan_request';
import { update } from './store';

// The controls' starting values, from the state (once, at boot).
export function fillInputs(app: App): void {
  const s = app.state;
  byId<HTMLInputElement>('batch').value = String(s.batch);
  byId<HTMLInputElement>('seq').value = String(s.seq);
  byId<HTMLInputElement>('sweep-max').value = String(s.sweepMax);
  for (const row of TYPED) {
    const v = s[row.field];
    byId<HTMLInputElement>(row.input.control).value = row.input.optional && v === 0 ? '' : String(v);
  }
  byId<HTMLInputElement>('train-tokens').value = s.tokens > 0 ? formatTokens(s.tokens) : '';
  if (s.model === SIZES && s.modelSizes) {
    fillSizesForm(s.modelSizes);
    byId<HTMLDetailsElement>('sizes-model').open = true;
  }
  const system = byId<HTMLSelectElement>('train-system');
  system.append(h('option', { value: '' }, 'Automatic: the GPU’s catalog system, else a node built from its links'));
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
  wireTyped(app);
  wireComparePrices(app);
  wireTraining(app);
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
  byId('custom-gpu-use').addEventListener('click', async () => {
    try {
      const spec = validateCustomGpu(app, readCustomGpuForm());
      delete spec.id;
      await withLinkCodec();
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
  const useConfig = async (text: string) => {
    try {
      const customModel = parseConfigText(app, text);
      await withLinkCodec();
      update({ customModel, model: CUSTOM, ui: { configError: '' } });
    } catch (e) {
      update({ ui: { configError: errorMessage(e) } });
    }
  };
  byId('model-config-use').addEventListener('click', () => void useConfig(box.value));
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
    await useConfig(text);
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
    void useConfig(text);
  });
}

// A custom GPU or config travels packed in the link: its code (lazy.ts, fetched after the first
// forecast) is in before the state holds one, so the link follows in the same render. Where it
// cannot be loaded the forecast goes ahead and the link stays as it was (link.ts syncLink).
async function withLinkCodec(): Promise<void> {
  await linkCodec.load().catch(() => undefined);
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

// The typed numbers of the link's table (state.ts TYPED), each group read together: the serve
// view's prompt, output and GPU count; its load sweep (the largest rate, empty: from the
// forecast; the rates, requests per rate, seed, length spread, expert-parallel GPUs and the
// SLO); the capacity plan (rate and price, empty: none; the most GPUs); the training's GPU
// counts; the LoRA rank. One that cannot be read leaves its forecast or plot on screen, dimmed,
// saying why.
function readTyped(row: (typeof TYPED)[number]): number {
  const { control, label, optional } = row.input;
  if (optional && byId<HTMLInputElement>(control).value.trim() === '') return 0;
  if (row.kind === 'ratio') return readRangeRatio(control, label);
  if (row.kind === 'positive') return readPositive(control, label, row.max ?? Infinity);
  return readWholeNumber(control, label, row.min ?? 0, row.max ?? Infinity);
}

type Field = [string, NumberKey, (id: string) => number];

// The training's token count, in words ("300B"), read with its GPU counts (a link row of its own).
const trainTokens: Field = [
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
];

function wireTyped(app: App): void {
  for (const group of new Set(TYPED.map((row) => row.input.group))) {
    const fields = TYPED.filter((row) => row.input.group === group).map((row): Field => [
      row.input.control,
      row.field,
      () => readTyped(row),
    ]);
    wireGroup(app, group, group === 'trainError' ? [...fields, trainTokens] : fields);
  }
}

// Fields read together on every keystroke in any of them, each into its state field: one that
// cannot be read is marked and its message goes to the group's error (the state keeps its last
// values); all read, the fields whose value changed are updated and the error cleared.
function wireGroup(app: App, error: InputGroup, fields: Field[]): void {
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

// The multi-GPU training fields chosen (their counts are typed: wireTyped). The core checks that
// they fit the model and system.
function wireTraining(app: App): void {
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
  // The exports are of the view on screen (export_view.ts, loaded on demand: lazy.ts).
  const withExport = async (button: HTMLElement, use: (m: typeof import('./export_view')) => void) => {
    let m: typeof import('./export_view');
    try {
      m = await exportView.load();
    } catch (e) {
      const label = button.textContent;
      button.textContent = `Could not be loaded (${errorMessage(e)}); reload the page`;
      setTimeout(() => (button.textContent = label), 3000);
      return;
    }
    use(m);
  };
  const save = (ext: 'csv' | 'json', button: HTMLElement) =>
    withExport(button, (m) => {
      const x = m.viewExport(app, link());
      if (x) m.download(`${x.stem}.${ext}`, ext === 'csv' ? 'text/csv' : 'application/json', x[ext]);
    });
  byId('export-csv').addEventListener('click', (e) => void save('csv', e.currentTarget as HTMLElement));
  byId('export-json').addEventListener('click', (e) => void save('json', e.currentTarget as HTMLElement));
  byId('download-config').addEventListener(
    'click',
    (e) =>
      void withExport(e.currentTarget as HTMLElement, (m) => {
        const c = app.state.customModel;
        if (c) m.download('config.json', 'application/json', JSON.stringify(c, null, 2) + '\n');
      }),
  );
}
