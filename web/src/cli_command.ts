// A request as the command line that answers it: `tilecast VERB --field-name value ... --json`,
// every field of the request a flag (the CLI's flags are the API's fields), its defaults left out,
// so a field the page sends is a flag the command prints. Catalog GPU and model only (a custom
// one has no name the CLI knows): null otherwise.
export function cliCommand(
  verb: string,
  request: { gpu: unknown; model: unknown },
  defaults: Readonly<Record<string, unknown>> = {},
): string | null {
  if (typeof request.gpu !== 'string' || typeof request.model !== 'string') return null;
  const flags = Object.entries(request)
    .filter(([k, v]) => v !== undefined && v !== defaults[k])
    .map(([k, v]) => `--${k.replace(/_/g, '-')} ${v}`);
  return `tilecast ${verb} ${flags.join(' ')} --json`;
}
