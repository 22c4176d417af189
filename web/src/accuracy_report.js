// @ts-check
// The accuracy report's shape (web/public/accuracy.json), defined once:
// - web/scripts/accuracy_merge.mjs checks every report it writes against it;
// - the page's types are derived from it (src/accuracy.ts, type-checked by tsc) and
//   the page checks the report it fetches;
// - web/tests/accuracy_report.test.mjs checks the committed report.
// A leaf is 'string', 'number', 'string|null' or 'number|null'; [shape] is an array
// of that shape; an object lists every field (none missing, none extra).

export const REPORT_SHAPE = /** @type {const} */ ({
  tilecast_version: 'string|null',
  generated_by: 'string',
  dataset: 'string',
  e2e: {
    cases: [
      {
        gpu: 'string',
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
    summary: [
      {
        gpu: 'string',
        mode: 'string',
        option: 'string',
        n: 'number',
        mean_abs_error_pct: 'number',
        roofline_mean_abs_error_pct: 'number',
        max_abs_error_pct: 'number',
      },
    ],
  },
  kernels: {
    groups: [{ gpu: 'string', op: 'string', n: 'number', mape_pct: 'number', roofline_mape_pct: 'number' }],
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
