// What the export buttons download: the file of the view on screen (the forecast, the
// comparison of model or serving forecasts, the batch sweep), from the memo's answers to the
// same requests the view draws. Null while any of them is still being computed. Loaded on demand
// (lazy.ts): by the first export, or after the first forecast.
import { gpuLabel, requestFor, servingRequestFor, type App } from './app';
import type { AnyForecast, ModelRequest, ServingForecast, ServingRequest } from './engine';
import {
  compareCsv,
  compareServingCsv,
  fileStem,
  forecastCsv,
  forecastJson,
  sweepCsv,
  tableJson,
  type ExportRow,
} from './export';
import { peek, peekServing, type Result, type ServeResult } from './memo';
import { compareIds } from './compare_view';
import { sweepRequests } from './sweep_view';

// The config download beside the model picker (inputs.ts) saves through the same helper.
export { download } from './export';

export interface ViewExport {
  stem: string; // the file name without its extension
  csv: string;
  json: string;
}

function slug(s: string): string {
  return (
    s
      .toLowerCase()
      .replace(/[^a-z0-9.]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 40) || 'x'
  );
}

function rowOf<R, F>(key: string, name: string, request: R, r: Result | ServeResult): ExportRow<R, F> {
  return r.ok ? { key, name, request, forecast: r.f as F } : { key, name, request, error: r.error };
}

export function viewExport(app: App, link: string): ViewExport | null {
  const s = app.state;
  const what = `${slug(s.model)}-${s.mode}-b${s.batch}-s${s.seq}`;
  if (s.view === 'compare' && s.compareServing) {
    const ids = compareIds(app);
    const requests: ServingRequest[] = ids.map((id) => ({ ...servingRequestFor(app), gpu: id }));
    const results = requests.map((r) => peekServing(r));
    if (results.some((r) => !r)) return null;
    const rows = ids.map((id, i) =>
      rowOf<ServingRequest, ServingForecast>(id, gpuLabel(app, id), requests[i], results[i]!),
    );
    return {
      stem: `tilecast-compare-serving-${slug(s.model)}-b${s.batch}-p${s.prompt}-o${s.output}`,
      csv: compareServingCsv(rows, link),
      json: tableJson('compare', rows, link),
    };
  }
  if (s.view === 'compare') {
    const ids = compareIds(app);
    const requests = ids.map((id) => requestFor(app, id));
    const results = requests.map((r) => peek(r));
    if (results.some((r) => !r)) return null;
    const rows = ids.map((id, i) => rowOf<ModelRequest, AnyForecast>(id, gpuLabel(app, id), requests[i], results[i]!));
    return { stem: `tilecast-compare-${what}`, csv: compareCsv(rows, link), json: tableJson('compare', rows, link) };
  }
  if (s.view === 'sweep') {
    // As the view: every batch up to the first that could not be forecast.
    const { batches, requests } = sweepRequests(app);
    const rows: ExportRow<ModelRequest, AnyForecast>[] = [];
    for (const [i, request] of requests.entries()) {
      const r = peek(request);
      if (!r) return null;
      rows.push(rowOf(String(batches[i]), '', request, r));
      if (!r.ok) break;
    }
    return {
      stem: `tilecast-sweep-${slug(s.model)}-${slug(s.gpu)}-${s.mode}-s${s.seq}-to-b${batches.at(-1)}`,
      csv: sweepCsv(rows, link),
      json: tableJson('sweep', rows, link),
    };
  }
  // The forecast on screen: the memo's answer for the state.
  const request = requestFor(app, undefined, undefined, true);
  const r = peek(request);
  if (!r?.ok) return null;
  return { stem: fileStem(r.f), csv: forecastCsv(r.f, link), json: forecastJson(r.f, request, link) };
}
