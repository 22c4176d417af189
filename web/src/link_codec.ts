// A custom GPU or a pasted config in a link (state.ts `cgpu` / `cmodel`): its JSON deflated at
// level 9 and written base64url after a 'z'. With fflate's deflate a chunk of its own (lazy.ts
// linkCodec), not in the first forecast's bytes: boot.ts loads it before reading a link that
// carries one, inputs.ts before a custom GPU or config is used, and after the first forecast.
import { Inflate, deflateSync, strFromU8, strToU8 } from 'fflate';
import { MAX_PARAM } from './state';

// Inflated payloads larger than this are refused (a tampered link cannot make
// the page decompress a bomb).
const MAX_INFLATED = 1 << 20;

function toBase64Url(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error('it holds characters that base64url does not use');
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/');
  let bin: string;
  try {
    bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  } catch {
    throw new Error('it is cut short or damaged (its base64url text has a wrong length)');
  }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; ++i) out[i] = bin.charCodeAt(i);
  return out;
}

export function packJson(value: unknown): string {
  return 'z' + toBase64Url(deflateSync(strToU8(JSON.stringify(value)), { level: 9 }));
}

export function unpackJson(packed: string): unknown {
  if (packed.length > MAX_PARAM)
    throw new Error(`it is ${packed.length} characters long; at most ${MAX_PARAM} are accepted`);
  if (!packed.startsWith('z')) throw new Error('it is not in a format this page knows');
  const bytes = fromBase64Url(packed.slice(1));
  const chunks: Uint8Array[] = [];
  let total = 0;
  let done = false;
  const inflate = new Inflate((chunk, final) => {
    total += chunk.length;
    if (total > MAX_INFLATED) throw new Error(`it inflates to more than ${MAX_INFLATED} bytes`);
    chunks.push(chunk);
    if (final) done = true;
  });
  try {
    inflate.push(bytes, true);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    throw new Error(msg.startsWith('it ') ? msg : `its compressed data is damaged (${msg})`);
  }
  if (!done) throw new Error('its compressed data is cut short');
  const all = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  let text: string;
  try {
    text = strFromU8(all);
  } catch {
    throw new Error('it does not decode to text');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new Error('it does not decode to JSON');
  }
}
