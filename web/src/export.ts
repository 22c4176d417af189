// Results as CSV and JSON files (built in memory, downloaded through a blob: URL).
import { isMegatron, type AnyForecast, type MegatronForecast, type ModelRequest } from './engine';

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
    // The 80% band (empty for the roofline predictor and multi-GPU steps, which have none).
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
  for (const c of f.caveats ?? []) rows.push(['caveat', '', '', '', '', c]);
  for (const [k, v] of Object.entries(f.breakdown ?? {})) rows.push(['breakdown', k, '', '', '', v]);
  for (const l of f.layers ?? []) rows.push(['layer', l.name, l.count, l.forward_ms, l.backward_ms, l.total_ms]);
  return rows.map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n';
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
