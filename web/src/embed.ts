// ?embed=1: a compact card for an <iframe>. Its figures are drawn by the main
// view's showFigures() from the same memoised forecast, so the two cannot differ.
import { requestFor, type App } from './app';
import { byId, clear, h } from './dom';
import { shareUrl } from './state';
import { pageUrl } from './link';
import { forecast } from './memo';
import { forecastTitle, modeWords, showFigures } from './views';

export function showEmbedLoading(): void {
  document.documentElement.classList.add('embedded');
  byId('app').hidden = true;
  const card = byId('embed');
  card.hidden = false;
  card.textContent = 'Loading the forecast…';
}

export function renderEmbed(app: App): void {
  const card = byId('embed');
  clear(card);
  const r = forecast(app.engine, requestFor(app));
  if (r.ok) {
    const f = r.f;
    const figure = (id: string, label: HTMLElement, muted = false) =>
      h('div', {}, h('output', { id, class: muted ? 'value muted' : 'value' }), label);
    card.append(
      h('div', { class: 'embed-title' }, forecastTitle(f)),
      h('div', { class: 'embed-sub', id: 'embed-setting' }, `${modeWords(f.mode)} · batch ${f.batch} · sequence ${f.seq} · PyTorch eager, FP32, one GPU`),
      h('div', { class: 'embed-figures' },
        figure('embed-latency', h('div', { class: 'label', id: 'embed-latency-label' })),
        figure('embed-roofline', h('div', { class: 'label' }, 'Roofline only'), true),
      ),
      h('div', { class: 'embed-sub' }, h('output', { id: 'embed-samples' }), ' · ', h('output', { id: 'embed-tokens' })),
    );
    showFigures('embed-', f);
    const caveats = f.caveats ?? [];
    if (caveats.length)
      card.append(h('p', { class: 'embed-note', id: 'embed-caveats', title: caveats.join(' ') }, caveats.join(' ')));
  } else {
    card.append(h('p', { class: 'error', id: 'embed-error', role: 'alert' }, `No forecast: ${r.error}`));
  }
  if (app.ui.notices.length)
    card.append(h('p', { class: 'embed-note', id: 'embed-notices', title: app.ui.notices.join(' ') }, app.ui.notices.join(' ')));
  const open = h('a', { href: shareUrl(app.state, app.engine.version, pageUrl()), target: '_blank', rel: 'noopener' }, 'Open in the tilecast calculator');
  card.append(h('div', { class: 'embed-foot' }, `tilecast ${app.engine.version} · `, open));
  document.documentElement.dataset.forecasts = '1';
}
