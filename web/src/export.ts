// Results as CSV and JSON files (built in memory, downloaded through a blob: URL).
import {
  isMegatron,
  type AnyForecast,
  type MegatronForecast,
  type ModelRequest,
  type ServingForecast,
  type ServingRequest,
} from './engine';
import { footing } from './footing';

function csvCell(v: unknown): string {
  let s = v === null || v === undefined ? '' : String(v);
  // Cells a spreadsheet would run as a formula are quoted as text.
  if (/^[=+\-@\t\r]/.test(s) && !/^-?\d/.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

// The megatron step: its figures, layout, breakdown, memory, assumptions and caveats.
function megatronCsv(f: MegatronForecast, link: string): unknown[][] {
  const rows: unknown[][] = [
    ['section', 'name', 'count', 'forward_ms', 'backward_ms', 'total_ms'],
    ['summary', 'engine', '', '', '', f.engine],
  ];
  for (const k of ['gpu', 'model'] as const) rows.push(['summary', k, '', '', '', f[k].name]);
  for (const k of [
    'mode',
    'batch',
    'seq',
    'precision',
    'predictor',
    'tilecast_version',
    'samples_per_s',
    'tokens_per_s',
    'tokens_per_s_per_gpu',
    'model_tflops_per_gpu',
    'mfu',
    'hfu',
    'peak_tflops',
    'mfu_formula',
    'bubble_fraction',
    'params_b',
    'tokens',
    'train_days',
  ] as const)
    rows.push(['summary', k, '', '', '', f[k]]);
  rows.push(['summary', 'step_ms', '', f.forward_ms, f.backward_ms, f.step_ms]);
  rows.push(['layer', 'one transformer layer', 1, f.layer_forward_ms, f.layer_backward_ms, '']);
  rows.push(['summary', 'link', '', '', '', link]);
  for (const [k, v] of Object.entries(f.parallel)) rows.push(['parallel', k, '', '', '', v]);
  for (const [k, v] of Object.entries(f.breakdown_ms)) rows.push(['breakdown', k, '', '', '', v]);
  for (const [k, v] of Object.entries(f.memory)) rows.push(['memory', k, '', '', '', v]);
  for (const a of f.assumptions) rows.push(['assumption', '', '', '', '', a]);
  for (const c of f.caveats) rows.push(['caveat', '', '', '', '', c]);
  return rows;
}

export function forecastCsv(f: AnyForecast, link: string): string {
  if (isMegatron(f))
    return (
      megatronCsv(f, link)
        .map((r) => r.map(csvCell).join(','))
        .join('\r\n') + '\r\n'
    );
  const rows: unknown[][] = [
    ['section', 'name', 'count', 'forward_ms', 'backward_ms', 'total_ms'],
    ['summary', 'gpu', '', '', '', f.gpu.name],
    ['summary', 'model', '', '', '', f.model.name],
    ['summary', 'mode', '', '', '', f.mode],
    ['summary', 'batch', '', '', '', f.batch],
    ['summary', 'seq', '', '', '', f.seq],
    ['summary', 'predictor', '', '', '', f.predictor],
    ['summary', 'tilecast_version', '', '', '', f.tilecast_version],
    ['summary', 'latency_ms', '', f.forward_ms, f.backward_ms, f.latency_ms],
    // The 80% band (empty for the roofline predictor, which has none).
    ['summary', 'band_low_ms', '', '', '', f.band_low_ms],
    ['summary', 'band_high_ms', '', '', '', f.band_high_ms],
    ['summary', 'roofline_latency_ms', '', '', '', f.roofline_latency_ms],
    ['summary', 'samples_per_s', '', '', '', f.samples_per_s],
    ['summary', 'tokens_per_s', '', '', '', f.tokens_per_s],
    ['summary', 'kernels', '', '', '', f.kernels],
    ['summary', 'link', '', '', '', link],
  ];
  const p = f.parallel;
  if (p) {
    // A multi-GPU step: its configuration, memory per GPU and stages.
    for (const [k, v] of Object.entries(p)) rows.push(['parallel', k, '', '', '', v]);
    rows.push(['summary', 'tokens_per_s_per_gpu', '', '', '', f.tokens_per_s_per_gpu]);
    rows.push(['summary', 'bubble_fraction', '', '', '', f.bubble_fraction]);
    for (const st of f.stages ?? [])
      for (const k of ['compute_busy_ms', 'comm_busy_ms', 'exposed_comm_ms', 'bubble_ms'] as const)
        rows.push(['stage', `${st.stage}.${k}`, '', '', '', st[k]]);
    for (const a of f.assumptions ?? []) rows.push(['assumption', '', '', '', '', a]);
  }
  // Memory per GPU (training forecasts).
  for (const [k, v] of Object.entries(f.memory ?? {})) rows.push(['memory', k, '', '', '', v]);
  // LoRA / QLoRA: what trains and what is frozen, and what the forecast assumes of it.
  if (f.finetune) {
    const { assumptions, ...fields } = f.finetune;
    for (const [k, v] of Object.entries(fields)) rows.push(['finetune', k, '', '', '', v]);
    for (const a of assumptions) rows.push(['assumption', '', '', '', '', a]);
  }
  for (const c of f.caveats ?? []) rows.push(['caveat', '', '', '', '', c]);
  for (const [k, v] of Object.entries(f.breakdown ?? {})) rows.push(['breakdown', k, '', '', '', v]);
  for (const l of f.layers ?? []) rows.push(['layer', l.name, l.count, l.forward_ms, l.backward_ms, l.total_ms]);
  return rows.map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

// A table as CSV: its header, a row each, and the link last.
function tableCsv(header: string[], rows: unknown[][], link: string): string {
  return [header, ...rows, ['link', link]].map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

// One row of the comparison (a GPU) or of the sweep (a batch): its request and answer.
export interface ExportRow<R, F> {
  key: string; // the GPU's id, or the batch
  name: string;
  request: R;
  forecast?: F;
  error?: string;
}

const MODEL_COLUMNS = [
  'latency_ms',
  'band_low_ms',
  'band_high_ms',
  'roofline_latency_ms',
  'mfu',
  'samples_per_s',
  'tokens_per_s',
  'memory_total_gb',
  'memory_capacity_gb',
  'fits',
  'footing',
  'error',
];

function modelCells(f: AnyForecast | undefined, error = ''): unknown[] {
  if (!f) return [...MODEL_COLUMNS.slice(0, -1).map(() => ''), error];
  const mega = isMegatron(f);
  return [
    f.latency_ms,
    mega ? '' : f.band_low_ms,
    mega ? '' : f.band_high_ms,
    mega ? '' : f.roofline_latency_ms,
    mega ? f.mfu : '',
    f.samples_per_s,
    f.tokens_per_s,
    f.memory?.total_gb,
    f.memory?.capacity_gb,
    f.memory?.fits,
    footing(f),
    '',
  ];
}

// The comparison of the model forecast: a GPU a row.
export function compareCsv(rows: ExportRow<ModelRequest, AnyForecast>[], link: string): string {
  return tableCsv(
    ['gpu', 'name', ...MODEL_COLUMNS],
    rows.map((r) => [r.key, r.name, ...modelCells(r.forecast, r.error)]),
    link,
  );
}

// The comparison of serving forecasts: time to first token, per token, tokens/s, the 80% band
// (multipliers of both times; empty for the roofline predictor), memory, largest batch.
export function compareServingCsv(rows: ExportRow<ServingRequest, ServingForecast>[], link: string): string {
  return tableCsv(
    [
      'gpu',
      'name',
      'ttft_ms',
      'tpot_ms',
      'tokens_per_s',
      'band_low',
      'band_high',
      'memory_total_gb',
      'memory_capacity_gb',
      'fits',
      'max_batch',
      'footing',
      'error',
    ],
    rows.map((r) => {
      const f = r.forecast;
      return f
        ? [
            r.key,
            r.name,
            f.prefill_ms,
            f.decode_ms_per_token,
            f.tokens_per_s,
            f.band?.low ?? '',
            f.band?.high ?? '',
            f.memory.total_gb,
            f.memory.capacity_gb,
            f.memory.fits,
            f.max_batch,
            footing(f),
            '',
          ]
        : [r.key, r.name, '', '', '', '', '', '', '', '', '', '', r.error];
    }),
    link,
  );
}

// The batch sweep: a batch a row, up to the first that could not be forecast.
export function sweepCsv(rows: ExportRow<ModelRequest, AnyForecast>[], link: string): string {
  return tableCsv(
    ['batch', ...MODEL_COLUMNS],
    rows.map((r) => [r.key, ...modelCells(r.forecast, r.error)]),
    link,
  );
}

// The comparison's or the sweep's JSON: every row's request and the core's response (or error).
export function tableJson(view: 'compare' | 'sweep', rows: ExportRow<unknown, unknown>[], link: string): string {
  const out = rows.map((r) => ({
    [view === 'compare' ? 'gpu' : 'batch']: view === 'compare' ? r.key : Number(r.key),
    request: r.request,
    ...(r.forecast ? { forecast: r.forecast } : { error: r.error }),
  }));
  return JSON.stringify({ link, view, rows: out }, null, 2) + '\n';
}

export function forecastJson(f: AnyForecast, request: ModelRequest, link: string): string {
  return JSON.stringify({ link, request, forecast: f }, null, 2) + '\n';
}

export function download(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function fileStem(f: AnyForecast): string {
  const slug = (s: string) =>
    s
      .toLowerCase()
      .replace(/[^a-z0-9.]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 40) || 'x';
  return `tilecast-${slug(f.model.id || f.model.name)}-${slug(f.gpu.id || f.gpu.name)}-${f.mode}-b${f.batch}-s${f.seq}`;
}
