// The per-operator table (operators_view.ts) as the browser tests read it, and the one check that
// its rows are a response's operator rows: the forecast view's `operators` (calc.test.mjs) and the
// serve view's `decode_operators` (serve_operators.test.mjs).
import assert from 'node:assert/strict';

// The table's rows in the order shown, once its panel's drawing (after the frame: operators_view.ts)
// is made: each row's index into the response's rows, its name cell, kernel, bound, the exact
// numbers behind its cells and every cell's text.
export async function operatorRows(page, table) {
  await page.waitForSelector(`${table.replace(/-table$/, '-panel')}:not([data-pending])`, { state: 'attached' });
  return page.$$eval(`${table} tbody tr`, (trs) =>
    trs.map((tr) => {
      const cells = [...tr.querySelectorAll('td')];
      return {
        index: Number(tr.dataset.index),
        name: tr.querySelector('th').textContent,
        kernel: cells[0].textContent,
        values: cells.filter((td) => td.dataset.value !== undefined).map((td) => Number(td.dataset.value)),
        texts: cells.map((td) => td.textContent.trim()),
        bound: tr.querySelector('td[data-bound]').dataset.bound,
      };
    }),
  );
}

// Every response row once, largest share first, each row's name, kernel, bound and exact numbers
// the response's.
export function assertRowsAreOperators(rows, ops) {
  assert.equal(rows.length, ops.length);
  assert.deepEqual(
    rows.map((r) => r.index).sort((a, b) => a - b),
    ops.map((_, i) => i),
  );
  for (let i = 1; i < rows.length; ++i)
    assert.ok(ops[rows[i - 1].index].share >= ops[rows[i].index].share, 'largest share first');
  for (const r of rows) {
    const o = ops[r.index];
    assert.ok(r.name.startsWith(`${o.name} ${o.section}`), r.name);
    assert.equal(r.kernel, o.kernel);
    assert.equal(r.bound, o.bound);
    assert.deepEqual(r.values, [
      o.launches,
      o.flops,
      o.bytes,
      o.intensity_flop_per_byte,
      o.ridge_flop_per_byte,
      o.time_ms,
      o.share,
    ]);
  }
}
