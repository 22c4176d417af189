// The link: checking an opened link's names against the catalogs, and keeping the
// address bar, the share box and the embed snippet in step with the state.
import { gpuById, modelById, systemById, type App } from './app';
import { byId } from './dom';
import { errorMessage, type GpuSpec } from './engine';
import {
  CUSTOM,
  DEFAULT_STATE,
  SIZES,
  GPU_NAME_MAX,
  MAX_PARAM,
  clip,
  linkParts,
  linkTail,
  shareUrl,
  type LinkParts,
  type ParsedLink,
  type State,
} from './state';

// The link's state with unknown names replaced by the defaults; each replacement
// adds a sentence to link.problems.
// How the CLI matches names (core common/name_key.hpp): case-insensitive, ignoring spaces,
// '-', '_' and '.'; a GPU by id, name or alias, a model by id or name.
export function nameKey(s: string): string {
  return s.replace(/[ \-_.]/g, '').toLowerCase();
}

export function resolveGpuName(app: App, word: string): string | undefined {
  if (gpuById(app, word)) return word;
  const key = nameKey(word);
  if (!key) return undefined;
  for (const pick of [(g: GpuSpec) => [g.id ?? ''], (g: GpuSpec) => [g.name], (g: GpuSpec) => g.aliases ?? []])
    for (const g of app.gpus) if (pick(g).some((n) => nameKey(n) === key)) return g.id;
  return undefined;
}

export function resolveModelName(app: App, word: string): string | undefined {
  if (modelById(app, word)) return word;
  const key = nameKey(word);
  if (!key) return undefined;
  return app.models.find((m) => nameKey(m.id) === key)?.id ?? app.models.find((m) => nameKey(m.name) === key)?.id;
}

export function checkLink(app: App, link: ParsedLink): State {
  const s = { ...link.state };
  // The names the CLI accepts: "h100", "llama-3-8b" (written back as the catalog's ids).
  if (s.gpu !== CUSTOM) s.gpu = resolveGpuName(app, s.gpu) ?? s.gpu;
  if (s.model !== CUSTOM && s.model !== SIZES) s.model = resolveModelName(app, s.model) ?? s.model;
  s.compare = s.compare.map((id) => resolveGpuName(app, id) ?? id);
  if (s.gpu !== CUSTOM && !gpuById(app, s.gpu)) {
    link.problems.push(
      `The link's GPU "${clip(s.gpu)}" is not in this page's catalog; showing ${gpuById(app, DEFAULT_STATE.gpu)?.name}.`,
    );
    s.gpu = DEFAULT_STATE.gpu;
  }
  if (s.model !== CUSTOM && s.model !== SIZES && !modelById(app, s.model)) {
    link.problems.push(
      `The link's model "${clip(s.model)}" is not in this page's model zoo; showing ${modelById(app, DEFAULT_STATE.model)?.name}.`,
    );
    s.model = DEFAULT_STATE.model;
  }
  if (s.gpu === CUSTOM && s.customGpu) {
    try {
      s.customGpu = app.engine.validateGpu(s.customGpu);
      if (s.customGpu.name.length > GPU_NAME_MAX) {
        link.problems.push(
          `The custom GPU's name in the link is ${s.customGpu.name.length} characters long; it was cut to ${GPU_NAME_MAX}.`,
        );
        s.customGpu = { ...s.customGpu, name: s.customGpu.name.slice(0, GPU_NAME_MAX) };
      }
    } catch (e) {
      link.problems.push(`The custom GPU in the link was rejected: ${errorMessage(e)}`);
      s.gpu = DEFAULT_STATE.gpu;
      s.customGpu = null;
    }
  }
  if (s.model === CUSTOM && s.customModel) {
    try {
      app.engine.validateModel(JSON.stringify(s.customModel));
    } catch (e) {
      link.problems.push(`The model config in the link was rejected: ${errorMessage(e)}`);
      s.model = DEFAULT_STATE.model;
      s.customModel = null;
    }
  }
  if (s.system && !systemById(app, s.system)) {
    link.problems.push(
      `The link's system "${clip(s.system)}" is not in this page's catalog; using the one built from the GPU.`,
    );
    s.system = DEFAULT_STATE.system;
  }
  const unknownCompare = s.compare.filter((id) => !gpuById(app, id));
  if (unknownCompare.length) {
    link.problems.push(`Left out of the comparison, not in the catalog: ${clip(unknownCompare.join(', '), 80)}.`);
    s.compare = s.compare.filter((id) => gpuById(app, id));
  }
  if (link.version !== null && link.version !== app.engine.version) {
    link.problems.push(
      `This link was made with tilecast ${clip(link.version, 20)}; this page runs ${app.engine.version}, so the numbers may differ from the ones that were shared.`,
    );
  }
  return s;
}

export function pageUrl(): string {
  const u = new URL(location.href);
  u.search = '';
  u.hash = '';
  return u.toString();
}

function escapeAttr(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/'/g, '&#39;');
}

let urlTimer: ReturnType<typeof setTimeout> | undefined;

// The address bar follows the state once input settles (history updates are slow
// and need not delay the numbers); the share box and the snippet at once. A custom GPU or config
// is packed by code loaded on demand (state.ts, link_codec.ts): until it is in, the link stays as
// it was, and its arrival renders again (render.ts passes linkCodec.ready() among the link's inputs).
export function syncLink(state: State, version: string, title: string | null): void {
  let parts: LinkParts;
  try {
    parts = linkParts(state, version);
  } catch {
    return;
  }
  const url = `${location.pathname}${linkTail(parts)}`;
  clearTimeout(urlTimer);
  urlTimer = setTimeout(() => {
    try {
      history.replaceState(null, '', url);
    } catch {
      /* some embedding contexts forbid it; the share box still has the link */
    }
    document.documentElement.dataset.url = url;
  }, 150);
  byId<HTMLInputElement>('share-link').value = shareUrl(state, version, pageUrl());
  // A config too large for any link: say so, and offer it as a file.
  byId('share-too-long').hidden = !parts.configLeftOut;
  byId('share-too-long-text').textContent = parts.configLeftOut
    ? `The pasted config is too large for a link (${parts.configChars.toLocaleString('en-US')} characters compressed; a link holds at most ${MAX_PARAM.toLocaleString('en-US')}). ` +
      'The link opens the same GPU and workload without it: send the config file with it, to be pasted or uploaded on the page.'
    : '';
  const embedLink = shareUrl(state, version, pageUrl(), true);
  const label = title ? `tilecast forecast: ${title}` : 'tilecast forecast';
  byId<HTMLTextAreaElement>('embed-snippet').value =
    `<iframe src="${escapeAttr(embedLink)}" title="${escapeAttr(label)}" width="440" height="250" style="border:0;max-width:100%" loading="lazy"></iframe>`;
}
