// The JSON API's response types, written once: web/scripts/gen_api_types.mjs generates them from
// core/schema/*.schema.json into wasm/tilecast_api.d.ts (shipped beside tilecast.js); the page
// takes the same file from here (engine.ts).
export type * from '../../../wasm/tilecast_api';
