// Tiny DOM helpers. Text always goes through textContent: nothing from the
// user, a link or a pasted file is ever parsed as HTML.
type Attrs = Record<string, string | number | boolean | undefined | null>;
type Child = Node | string | number | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = String(v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, ...children);
  return el;
}

export function append(el: Element, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`missing element #${id}`);
  return el as T;
}

export function clear(el: Element): void {
  el.replaceChildren();
}

export function setText(el: Element, text: string): void {
  el.textContent = text;
}

// Work drawn after the next frame (the charts, the operators tables): what costs more than the
// headline's render reaches the screen after it. One frame callback runs every waiting job in the
// order first asked for; a key keeps only its latest job, and a job that throws does not stop
// the others (its error is reported on its own).
const afterFrameJobs = new Map<string, () => void>();
let frameScheduled = false;

export function afterFrame(key: string, job: () => void): void {
  afterFrameJobs.set(key, job);
  if (frameScheduled) return;
  frameScheduled = true;
  requestAnimationFrame(() =>
    setTimeout(() => {
      frameScheduled = false;
      const jobs = [...afterFrameJobs.values()];
      afterFrameJobs.clear();
      for (const run of jobs)
        try {
          run();
        } catch (e) {
          queueMicrotask(() => {
            throw e;
          });
        }
    }, 0),
  );
}

// Drops a key's waiting job (its drawing is no longer wanted).
export function cancelAfterFrame(key: string): void {
  afterFrameJobs.delete(key);
}
