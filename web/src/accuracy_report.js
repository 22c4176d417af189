// @ts-check
// The accuracy report's shape (web/public/accuracy.json), defined once:
// - web/scripts/accuracy_merge.mjs checks every report it writes against it;
// - the page's types are derived from it (src/accuracy.ts, type-checked by tsc) and
//   the page checks the report it fetches;
// - web/tests/accuracy_report.test.mjs checks the committed report.
// A leaf is 'string', 'number', 'boolean', 'string|null' or 'number|null'; [shape] is an array
// of that shape; an object lists every field (none missing, none extra).

// What every section says about itself, shown above its tables: the data, the protocol, what
// the models were trained on against what they forecast, and the command that makes it.
const ABOUT = /** @type {const} */ ({
  title: 'string',
  data: 'string',
  protocol: 'string',
  training: 'string',
  command: 'string',
});
// `training` on a row: how the GPU it measures relates to the models' training data (built from
// the models' manifests, core/data/models/*/manifest.json, by web/scripts/accuracy_merge.mjs).
const KERNEL_GROUP = /** @type {const} */ ({
  gpu: 'string',
  training: 'string',
  op: 'string',
  n: 'number',
  mape_pct: 'number',
  roofline_mape_pct: 'number',
});
// A row of a cross-GPU table (models trained on one GPU, the other's rows forecast).
const CROSS_GPU_ROW = /** @type {const} */ ({
  train_gpu: 'string',
  test_gpu: 'string',
  training: 'string',
  op: 'string',
  n: 'number',
  mape_pct: 'number',
  roofline_mape_pct: 'number',
});
const E2E_SUMMARY = /** @type {const} */ ({
  gpu: 'string',
  training: 'string',
  mode: 'string',
  option: 'string',
  n: 'number',
  mean_abs_error_pct: 'number',
  roofline_mean_abs_error_pct: 'number',
  max_abs_error_pct: 'number',
});

// The sections in the order the page shows them: out-of-architecture figures first.
export const REPORT_SHAPE = /** @type {const} */ ({
  tilecast_version: 'string|null',
  generated_by: 'string',
  dataset: 'string',
  // The GPU catalog's architectures some evaluation here measured, and those none did.
  measured_architectures: 'string',
  unmeasured_architectures: [{ architecture: 'string', gpus: 'string' }],
  generalization: {
    about: ABOUT,
    hash: 'string',
    kernels: [
      {
        fold: 'string',
        gpu: 'string',
        training: 'string',
        op: 'string',
        n: 'number',
        mape_pct: 'number',
        signed_mean_pct: 'number',
        roofline_mape_pct: 'number',
      },
    ],
    e2e: [
      {
        fold: 'string',
        gpu: 'string',
        training: 'string',
        mode: 'string',
        n: 'number',
        mae_pct: 'number',
        signed_mean_pct: 'number',
        max_abs_pct: 'number',
        roofline_mae_pct: 'number',
      },
    ],
    bands: [
      {
        fold: 'string',
        fitted_on: 'string',
        kernel_n: 'number',
        kernel_inside_pct: 'number',
        kernel_mean_width_pct: 'number',
        e2e_n: 'number',
        e2e_inside_pct: 'number',
        e2e_mean_width_pct: 'number',
      },
    ],
  },
  h200: {
    about: ABOUT,
    runs: [
      {
        run: 'string',
        precision: 'string',
        command: 'string',
        kernels: [KERNEL_GROUP],
        kernels_overall_mape_pct: 'number|null',
        kernels_overall_roofline_mape_pct: 'number|null',
        kernels_not_evaluated: [{ op: 'string', n: 'number', why: 'string' }],
        e2e: [E2E_SUMMARY],
        labels_not_evaluated: 'number',
        // whole-model labels inside their forecast's 80% band, of those forecast with one
        labels_banded: 'number',
        labels_inside_band: 'number',
      },
    ],
  },
  fp16_cross_gpu: {
    about: ABOUT,
    rows: [{ ...CROSS_GPU_ROW, learned_gemm_mape_pct: 'number|null' }],
    overall: [{ train_gpu: 'string', test_gpu: 'string', mape_pct: 'number' }],
  },
  amd_cross_gpu: {
    about: ABOUT,
    rows: [CROSS_GPU_ROW],
    // the held-out GPU's kernels inside their forecasts' 80% bands
    bands: [{ train_gpu: 'string', test_gpu: 'string', n: 'number', inside_pct: 'number', mean_width_pct: 'number' }],
  },
  serving: {
    about: ABOUT,
    rows: [
      {
        id: 'string',
        source: 'string',
        source_url: 'string',
        gpu: 'string',
        training: 'string',
        model: 'string',
        precision: 'string',
        tp: 'number',
        ep: 'number',
        load: 'string',
        prompt: 'number',
        output: 'number',
        metric: 'string',
        published: 'number',
        tilecast: 'number',
        ratio: 'number',
        faithful: 'boolean',
        differs: 'string',
        fits: 'boolean',
        loaded: 'boolean',
        quantized: 'boolean',
      },
    ],
    summary: [{ rows: 'string', n: 'number', median_abs_error_pct: 'number|null' }],
  },
  parallel: {
    about: ABOUT,
    rows: [
      {
        table: 'string',
        model: 'string',
        setup: 'string',
        measure: 'string',
        published: 'number',
        tilecast: 'number',
        error: 'number',
        error_unit: 'string',
      },
    ],
    summary: {
      table4_max_abs_error_pct: 'number|null',
      table5_rows: 'number',
      table5_max_abs_error_pct: 'number|null',
      table5_mae_pct: 'number|null',
      mfu_rows: 'number',
      mfu_max_abs_error_points: 'number|null',
      all_fit: 'boolean',
    },
  },
  fp16: {
    about: ABOUT,
    groups: [KERNEL_GROUP],
    overall: [{ gpu: 'string', mape_pct: 'number' }],
  },
  e2e: {
    about: ABOUT,
    cases: [
      {
        gpu: 'string',
        training: 'string',
        model: 'string',
        mode: 'string',
        option: 'string',
        batch: 'number',
        seq: 'number',
        measured_ms: 'number|null',
        tilecast_ms: 'number|null',
        tilecast_error_pct: 'number|null',
        roofline_ms: 'number|null',
        roofline_error_pct: 'number|null',
      },
    ],
    summary: [E2E_SUMMARY],
  },
  kernels: {
    about: ABOUT,
    // shapes_in_training: the group's test rows whose shape its GPU also has in the training CSVs.
    groups: [{ ...KERNEL_GROUP, shapes_in_training: 'number' }],
    overall_mape_pct: 'number|null',
    roofline_overall_mape_pct: 'number|null',
  },
});

/** @param {unknown} v */
function kind(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : typeof v;
}

/**
 * Every way `value` differs from `shape`, one "path: problem" line each (none: it fits).
 * @param {unknown} value
 * @param {unknown} [shape]
 * @param {string} [path]
 * @returns {string[]}
 */
export function shapeProblems(value, shape = REPORT_SHAPE, path = 'report') {
  if (typeof shape === 'string') {
    const allowed = shape.split('|');
    const k = value === null ? 'null' : typeof value;
    const fits = allowed.includes(k) && (k !== 'number' || Number.isFinite(value));
    return fits ? [] : [`${path}: ${kind(value)} where ${shape} belongs`];
  }
  if (Array.isArray(shape)) {
    if (!Array.isArray(value)) return [`${path}: ${kind(value)} where an array belongs`];
    return value.flatMap((item, i) => shapeProblems(item, shape[0], `${path}[${i}]`));
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    return [`${path}: ${kind(value)} where an object belongs`];
  const fields = /** @type {Record<string, unknown>} */ (shape);
  const obj = /** @type {Record<string, unknown>} */ (value);
  const problems = Object.keys(fields).flatMap((k) =>
    k in obj ? shapeProblems(obj[k], fields[k], `${path}.${k}`) : [`${path}.${k}: missing`],
  );
  for (const k of Object.keys(obj))
    if (!(k in fields)) problems.push(`${path}.${k}: not in the report's shape (web/src/accuracy_report.js)`);
  return problems;
}
