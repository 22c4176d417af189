// ?embed=1: a compact card for an <iframe>. Its figures are drawn by the main
// view's showFigures() (the serve view's showServeFigures()) from the same memoised
// forecast, so the two cannot differ. Loaded on demand (lazy.ts): boot.ts shows the card's place
// (showEmbedLoading) and awaits this module beside the forecaster.
import { requestFor, servingRequestFor, type App } from './app';
import { byId, clear, h } from './dom';
import { isMegatron } from './engine';
import { fmtNum } from './format';
import { gb } from './memory_bar';
import { shareUrl } from './state';
import { pageUrl } from './link';
import { fillTasks } from './jobs';
import { forecastShown, forecastTask, peekServing, requestKey, servingKey, servingTask } from './memo';
import { serveSetting, serveTitle, showServeFigures } from './serve_view';
import { embedSetting, forecastTitle, modeWords, seqWords, showFigures } from './views';

// Draws the card once its forecast is in the memo (computed on the forecaster's thread first).
export function renderEmbed(app: App): Promise<void> {
  return new Promise((resolve) => {
    const draw = (): void => {
      if (app.state.view === 'serve') {
        const request = servingRequestFor(app);
        if (!peekServing(request)) {
          fillTasks('card', servingKey(request), [servingTask(request)], draw);
          return;
        }
      } else {
        const request = requestFor(app, undefined, undefined, true);
        const { pending } = forecastShown(request);
        if (pending.length) {
          fillTasks('card', requestKey(pending[0]), pending.map(forecastTask), draw);
          return;
        }
      }
      drawEmbed(app);
      resolve();
    };
    draw();
  });
}

function drawEmbed(app: App): void {
  const card = byId('embed');
  clear(card);
  if (app.state.view === 'serve') renderServeCard(app, card);
  else renderForecastCard(app, card);
  if (app.ui.notices.length)
    card.append(
      h('p', { class: 'embed-note', id: 'embed-notices', title: app.ui.notices.join(' ') }, app.ui.notices.join(' ')),
    );
  const open = h(
    'a',
    { href: shareUrl(app.state, app.engine.version, pageUrl()), target: '_blank', rel: 'noopener' },
    'Open in the tilecast calculator',
  );
  card.append(h('div', { class: 'embed-foot' }, `tilecast ${app.engine.version} · `, open));
  document.documentElement.dataset.forecasts = '1';
}

function caveatNote(card: HTMLElement, caveats: string[]): void {
  if (caveats.length)
    card.append(h('p', { class: 'embed-note', id: 'embed-caveats', title: caveats.join(' ') }, caveats.join(' ')));
}

// The serve view's card: time to first token, time per output token, tokens/s and
// whether it fits, from the same memoised serving forecast as the view.
function renderServeCard(app: App, card: HTMLElement): void {
  const r = peekServing(servingRequestFor(app))!;
  if (!r.ok) {
    card.append(h('p', { class: 'error', id: 'embed-error', role: 'alert' }, `No serving forecast: ${r.error}`));
    return;
  }
  const f = r.f;
  const figure = (id: string, label: string) =>
    h('div', {}, h('output', { id, class: 'value' }), h('div', { class: 'label' }, label));
  const m = f.memory;
  const fit = m.fits
    ? `fits: ${m.total_gb.toFixed(1)} of ${m.capacity_gb.toFixed(1)} GB per GPU, largest batch ${f.max_batch}`
    : `does not fit: ${m.total_gb.toFixed(1)} of ${m.capacity_gb.toFixed(1)} GB per GPU${f.max_batch > 0 ? `, largest batch ${f.max_batch}` : ''}`;
  card.append(
    h('div', { class: 'embed-title' }, `${serveTitle(f)} — serving`),
    h('div', { class: 'embed-sub', id: 'embed-setting' }, serveSetting(f)),
    h(
      'div',
      { class: 'embed-figures' },
      figure('embed-ttft', 'Time to first token'),
      figure('embed-tpot', 'Time per output token'),
    ),
    h(
      'div',
      { class: 'embed-sub' },
      h('output', { id: 'embed-serve-tokens' }),
      h('span', { id: 'embed-memory' }, ` · ${fit}`),
    ),
  );
  showServeFigures('embed-', f);
  caveatNote(card, f.caveats ?? []);
}

function renderForecastCard(app: App, card: HTMLElement): void {
  const r = forecastShown(requestFor(app, undefined, undefined, true)).r!;
  if (r.ok) {
    const f = r.f;
    const figure = (id: string, label: HTMLElement, muted = false) =>
      h('div', {}, h('output', { id, class: muted ? 'value muted' : 'value' }), label);
    card.append(
      h('div', { class: 'embed-title' }, forecastTitle(f)),
      h(
        'div',
        { class: 'embed-sub', id: 'embed-setting' },
        `${modeWords(f.mode)} · batch ${f.batch} · ${seqWords(f)} · ${embedSetting(f)}`,
      ),
      h(
        'div',
        { class: 'embed-figures' },
        figure('embed-latency', h('div', { class: 'label', id: 'embed-latency-label' })),
        // the megatron step has no roofline figure: its MFU stands there
        isMegatron(f)
          ? h(
              'div',
              {},
              h('output', { id: 'embed-mfu', class: 'value' }, `${fmtNum(100 * f.mfu)}%`),
              h('div', { class: 'label' }, 'MFU'),
            )
          : figure('embed-roofline', h('div', { class: 'label' }, 'Roofline only'), true),
      ),
      h(
        'div',
        { class: 'embed-sub' },
        h('output', { id: 'embed-samples' }),
        ' · ',
        h('output', { id: 'embed-tokens' }),
        f.memory
          ? h(
              'span',
              { id: 'embed-memory', 'data-fits': String(f.memory.fits) },
              f.memory.fits
                ? ' · fits in memory'
                : ` · does not fit: ${gb(f.memory.total_gb)} of ${gb(f.memory.capacity_gb)}`,
            )
          : '',
      ),
    );
    showFigures('embed-', f);
    caveatNote(card, f.caveats ?? []);
  } else {
    card.append(h('p', { class: 'error', id: 'embed-error', role: 'alert' }, `No forecast: ${r.error}`));
  }
}
