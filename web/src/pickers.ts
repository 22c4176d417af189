// The GPU and model pickers, the custom GPU form and the pasted config.
import { gpuById, type App } from './app';
import { groupGpus, groupModels, gpuMatches, paramsText } from './catalog';
import { byId, clear, h, setText } from './dom';
import { errorMessage, type GpuSpec, type ModelSizes } from './engine';
import { fmtNum } from './format';
import { CUSTOM, SIZES, clip } from './state';

export const MAX_CONFIG_BYTES = 1 << 20;

export function tooLong(n: number, what: string): string {
  return `The config is ${n} ${what}; at most ${MAX_CONFIG_BYTES} are accepted (1 MiB).`;
}

// ---- GPU -------------------------------------------------------------------

// The GPU list's values in order, for a search: the custom GPU first, then the
// catalog's matches by vendor and architecture.
export function gpuOptionIds(app: App, query: string): string[] {
  const ids = app.state.customGpu ? [CUSTOM] : [];
  for (const group of groupGpus(app.gpus.filter((g) => gpuMatches(g, query))))
    ids.push(...group.items.map((g) => g.id!));
  return ids;
}

export function fillGpuSelect(app: App, query: string): void {
  const select = byId<HTMLSelectElement>('gpu-select');
  clear(select);
  const matching = app.gpus.filter((g) => gpuMatches(g, query));
  if (app.state.customGpu) {
    select.append(
      h(
        'optgroup',
        { label: 'Custom' },
        h('option', { value: CUSTOM }, `Custom: ${clip(app.state.customGpu.name, 48)}`),
      ),
    );
  }
  for (const group of groupGpus(matching)) {
    const og = h('optgroup', { label: group.label });
    for (const g of group.items) og.append(h('option', { value: g.id! }, g.name));
    select.append(og);
  }
  // The selected GPU stays in the list (and on screen) when the search leaves it out.
  const none = query.trim() !== '' && matching.length === 0;
  if (![...select.options].some((o) => o.value === app.state.gpu)) {
    const current = gpuById(app, app.state.gpu);
    if (current)
      select.prepend(h('optgroup', { label: 'Selected' }, h('option', { value: current.id! }, current.name)));
  }
  if (none) select.prepend(h('option', { value: '', disabled: true }, `No GPU matches “${clip(query.trim(), 30)}”`));
  select.value = app.state.gpu;
  setText(
    byId('gpu-search-note'),
    none ? `No GPU matches “${clip(query.trim(), 40)}”; the selected GPU is unchanged.` : '',
  );
}

export function describeGpu(g: GpuSpec): string {
  const parts = [
    `${g.num_sm} ${g.vendor === 'AMD' ? 'CUs' : 'SMs'}`,
    `${fmtNum(g.fp32_gflops / 1000)} TFLOPS FP32`,
    g.fp32_matrix_gflops ? `${fmtNum(g.fp32_matrix_gflops / 1000)} TFLOPS FP32 matrix` : '',
    `${fmtNum(g.mem_gb)} GB`,
    `${fmtNum(g.mem_bw_gbps)} GB/s`,
    `${fmtNum(g.l2_mb)} MB L2`,
    g.l1_kb_per_sm ? `${fmtNum(g.l1_kb_per_sm)} KB L1/SM` : '',
  ];
  return parts.filter(Boolean).join(' · ');
}

export function showGpuInfo(app: App): void {
  const g = app.state.gpu === CUSTOM ? app.state.customGpu : gpuById(app, app.state.gpu);
  setText(byId('gpu-info'), g ? describeGpu(g) : '');
}

interface FieldDef {
  key: keyof GpuSpec;
  label: string;
  kind: 'text' | 'number' | 'vendor';
  optional?: boolean;
}

const GPU_FIELDS: FieldDef[] = [
  { key: 'name', label: 'Name', kind: 'text' },
  { key: 'vendor', label: 'Vendor', kind: 'vendor' },
  { key: 'architecture', label: 'Architecture', kind: 'text', optional: true },
  { key: 'compute_capability', label: 'Compute capability (NVIDIA, optional, e.g. 9.0)', kind: 'text', optional: true },
  { key: 'num_sm', label: 'SMs / CUs', kind: 'number' },
  { key: 'cores_per_sm', label: 'FP32 cores per SM', kind: 'number' },
  { key: 'boost_clock_mhz', label: 'Boost clock (MHz)', kind: 'number' },
  { key: 'fp32_gflops', label: 'FP32 (GFLOP/s)', kind: 'number' },
  { key: 'fp32_matrix_gflops', label: 'FP32 matrix (GFLOP/s, optional)', kind: 'number', optional: true },
  { key: 'mem_gb', label: 'Memory (GB)', kind: 'number' },
  { key: 'mem_bw_gbps', label: 'Bandwidth (GB/s)', kind: 'number' },
  { key: 'l2_mb', label: 'L2 cache (MB)', kind: 'number' },
  { key: 'max_threads_per_sm', label: 'Threads per SM (optional)', kind: 'number', optional: true },
  { key: 'l1_kb_per_sm', label: 'L1 per SM (KB, optional)', kind: 'number', optional: true },
];

// The per-precision peaks the form edits (TFLOP/s; int8: TOPS), by data type and unit: the
// catalog's peak_tflops. A 16-bit forecast needs the type's tensor (or vector) peak.
const PEAK_FIELDS: { dtype: string; unit: 'tensor' | 'vector'; label: string }[] = [
  { dtype: 'tf32', unit: 'tensor', label: 'TF32 tensor (TFLOP/s)' },
  { dtype: 'bf16', unit: 'tensor', label: 'BF16 tensor (TFLOP/s)' },
  { dtype: 'bf16', unit: 'vector', label: 'BF16 vector (TFLOP/s)' },
  { dtype: 'fp16', unit: 'tensor', label: 'FP16 tensor (TFLOP/s)' },
  { dtype: 'fp16', unit: 'vector', label: 'FP16 vector (TFLOP/s)' },
  { dtype: 'fp8', unit: 'tensor', label: 'FP8 tensor (TFLOP/s)' },
  { dtype: 'fp4', unit: 'tensor', label: 'FP4 tensor (TFLOP/s)' },
  { dtype: 'int8', unit: 'tensor', label: 'INT8 tensor (TOPS)' },
];
const peakId = (p: { dtype: string; unit: string }) => `cg-peak-${p.dtype}-${p.unit}`;

// The spec the form was filled from: every field it does not show (efficiencies, issue
// slots, sources, other data types' peaks) is kept from it, so a copy of a catalog GPU
// forecasts exactly as the catalog GPU does.
let formBase: Record<string, unknown> = {};
let formFrom = ''; // the catalog GPU it was copied from

export function buildCustomGpuForm(): void {
  const box = byId('custom-gpu-fields');
  clear(box);
  const numberInput = (id: string) => h('input', { id, type: 'number', inputmode: 'decimal', step: 'any', min: '0' });
  for (const f of GPU_FIELDS) {
    const id = `cg-${f.key}`;
    let input: HTMLElement;
    if (f.kind === 'vendor') {
      input = h('select', { id }, h('option', { value: 'NVIDIA' }, 'NVIDIA'), h('option', { value: 'AMD' }, 'AMD'));
    } else if (f.kind === 'number') input = numberInput(id);
    else input = h('input', { id, type: 'text', maxlength: '120' });
    box.append(h('div', { class: 'field' }, h('label', { for: id }, f.label), input));
  }
  const peaks = h('fieldset', { class: 'group peaks' }, h('legend', {}, 'Peaks by precision (dense; empty: none)'));
  for (const p of PEAK_FIELDS)
    peaks.append(h('div', { class: 'field' }, h('label', { for: peakId(p) }, p.label), numberInput(peakId(p))));
  box.append(peaks);
}

export function fillCustomGpuForm(g: GpuSpec): void {
  const { id: _id, ...rest } = g;
  formBase = JSON.parse(JSON.stringify(rest)) as Record<string, unknown>;
  if (g.id) formFrom = g.name;
  for (const f of GPU_FIELDS) {
    const el = byId<HTMLInputElement | HTMLSelectElement>(`cg-${f.key}`);
    let v = g[f.key];
    if (f.key === 'name' && g.id) v = `${g.name} (custom)`;
    el.value = v === undefined || v === null ? '' : String(v);
  }
  for (const p of PEAK_FIELDS) {
    const v = g.peak_tflops?.[p.dtype]?.[p.unit];
    byId<HTMLInputElement>(peakId(p)).value = v === undefined ? '' : String(v);
  }
}

// Reads the form over the spec it was filled from; the core validates the numbers' ranges.
export function readCustomGpuForm(): GpuSpec {
  const spec: Record<string, unknown> = JSON.parse(JSON.stringify(formBase)) as Record<string, unknown>;
  const number = (label: string, raw: string) => {
    const v = Number(raw);
    if (!Number.isFinite(v)) throw new Error(`${label}: "${clip(raw)}" is not a number`);
    return v;
  };
  for (const f of GPU_FIELDS) {
    const raw = byId<HTMLInputElement | HTMLSelectElement>(`cg-${f.key}`).value.trim();
    if (raw === '') {
      if (f.optional) {
        delete spec[f.key];
        continue;
      }
      throw new Error(`${f.label}: please fill this in`);
    }
    spec[f.key] = f.kind === 'number' ? number(f.label, raw) : raw;
  }
  const peaks = (spec.peak_tflops ?? {}) as Record<string, Record<string, number>>;
  for (const p of PEAK_FIELDS) {
    const raw = byId<HTMLInputElement>(peakId(p)).value.trim();
    const units = { ...(peaks[p.dtype] ?? {}) };
    if (raw === '') delete units[p.unit];
    else units[p.unit] = number(p.label, raw);
    if (Object.keys(units).length) peaks[p.dtype] = units;
    else delete peaks[p.dtype];
  }
  if (Object.keys(peaks).length) spec.peak_tflops = peaks;
  else delete spec.peak_tflops;
  // A printed memory total belongs to the catalog GPU's memory: with another size the copy's
  // memory follows its type's rule (device_memory_bytes in the core)
  if (spec.mem_gb !== formBase.mem_gb) {
    delete spec.mem_reported_mib;
    delete spec.mem_reported_source;
  }
  spec.aliases = [];
  // The catalog's citations (every *_source field) stay in the catalog: a copy says where its
  // numbers came from in a few words, so its link stays short.
  for (const k of Object.keys(spec))
    if (k.endsWith('_source') && typeof spec[k] === 'string' && formFrom) spec[k] = `as the catalog's ${formFrom}`;
  spec.source = formFrom
    ? `custom GPU entered in the web calculator, started from ${formFrom}`
    : 'custom GPU entered in the web calculator';
  return spec as unknown as GpuSpec;
}

export function validateCustomGpu(app: App, spec: GpuSpec): GpuSpec {
  return app.engine.validateGpu(spec);
}

// ---- model -----------------------------------------------------------------

export function fillModelSelect(app: App): void {
  const select = byId<HTMLSelectElement>('model-select');
  clear(select);
  const sizes = app.state.modelSizes;
  if (sizes)
    select.append(
      h('optgroup', { label: 'By its sizes' }, h('option', { value: SIZES }, `By its sizes (${sizesWords(sizes)})`)),
    );
  if (app.state.customModel) {
    select.append(
      h(
        'optgroup',
        { label: 'Pasted' },
        h('option', { value: CUSTOM }, `Pasted config (${clip(customModelName(app), 40)})`),
      ),
    );
  }
  for (const group of groupModels(app.models)) {
    const og = h('optgroup', { label: group.label });
    for (const m of group.items) og.append(h('option', { value: m.id }, `${m.name} · ${paramsText(m.params_b)}`));
    select.append(og);
  }
  select.value = app.state.model;
}

export function customModelName(app: App): string {
  const c = app.state.customModel;
  if (!c) return 'none';
  const archs = c['architectures'];
  if (typeof c['tilecast_name'] === 'string') return c['tilecast_name'];
  if (typeof c['_name_or_path'] === 'string') return c['_name_or_path'];
  if (Array.isArray(archs) && typeof archs[0] === 'string') return archs[0];
  if (typeof c['model_type'] === 'string') return c['model_type'];
  return 'custom model';
}

// "SwiGLU 32 × 4096" (the core names it so too: "swiglu 32x4096 (by its sizes)").
export function sizesWords(m: ModelSizes): string {
  return `${m.mlp === 'gelu' ? 'GeLU' : 'SwiGLU'} ${m.layers} × ${m.hidden}`;
}

export function showModelInfo(app: App): void {
  const el = byId('model-info');
  const sizes = app.state.modelSizes;
  if (app.state.model === SIZES && sizes) {
    const groups = sizes.query_groups ?? sizes.heads;
    setText(
      el,
      `By its sizes: ${sizes.layers} layers · hidden ${sizes.hidden} · ${sizes.heads} heads, ${groups} query groups · FFN ${sizes.ffn ?? "Megatron's default"} · vocabulary ${sizes.vocab} · ${sizes.mlp === 'gelu' ? 'GeLU' : 'SwiGLU'}, ${sizes.positions} positions`,
    );
    return;
  }
  if (app.state.model === CUSTOM) {
    // The core's reading of the config: its layers, width and parameters.
    let counts = '';
    try {
      const v = app.engine.validateModel(app.state.customModel);
      const of = v.language_model_of
        ? ` (the language model of ${v.language_model_of}; its vision encoder is not forecast)`
        : '';
      counts = ` · ${v.architecture}${of} · ${v.layers} layers · hidden ${v.hidden_size} · ${paramsText(v.params_b)}`;
    } catch {
      counts = '';
    }
    setText(el, `Pasted config: ${clip(customModelName(app), 60)}${counts}`);
    return;
  }
  const m = app.models.find((x) => x.id === app.state.model);
  setText(el, m ? `${m.architecture} · ${m.layers} layers · hidden ${m.hidden_size} · ${paramsText(m.params_b)}` : '');
}

// Checks a pasted config.json: size first, then the core's validation (which
// bounds depth and reports wrong types), then JavaScript's parser.
export function parseConfigText(app: App, text: string): Record<string, unknown> {
  // Characters first: each is at least a byte, so a long text is refused before it is encoded.
  if (text.length > MAX_CONFIG_BYTES) throw new Error(tooLong(text.length, 'characters'));
  const bytes = new TextEncoder().encode(text).length;
  if (text.trim() === '') throw new Error('The config is empty: paste the contents of a config.json.');
  if (bytes > MAX_CONFIG_BYTES) throw new Error(tooLong(bytes, 'bytes'));
  app.engine.validateModel(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new Error(`The config is not valid JSON: ${errorMessage(e)}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('The config must be a JSON object.');
  return value as Record<string, unknown>;
}
