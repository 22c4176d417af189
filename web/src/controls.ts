// The controls of the link's choices and switches (state.ts, CONTROLLED: a select per choice, a
// checkbox per switch), bound once for all: shown from the state, read into it. A new choice is a
// row in state.ts's LINK_FIELDS and its select in index.html; nothing here names one.
import { byId } from './dom';
import { CONTROLLED, type ChoiceRow, type State, type SwitchRow } from './state';
import { update } from './store';

type Controlled = (ChoiceRow | SwitchRow) & { control: string };

function show(row: Controlled, s: Readonly<State>): void {
  if (row.kind === 'switch') byId<HTMLInputElement>(row.control).checked = s[row.field];
  else byId<HTMLSelectElement>(row.control).value = s[row.field];
}

// Each control as the state has it; `changed` (render.ts) skips those already shown.
export function showControls(s: Readonly<State>, changed: (section: string, deps: unknown[]) => boolean): void {
  for (const row of CONTROLLED) if (changed(`control:${row.control}`, [s[row.field]])) show(row, s);
}

// A control's change goes to update(); a select's value that is not one of its row's (a page
// edited by hand) is ignored.
export function wireControls(state: () => Readonly<State>): void {
  for (const row of CONTROLLED) {
    if (row.kind === 'switch') {
      const box = byId<HTMLInputElement>(row.control);
      box.addEventListener('change', () => update({ [row.field]: box.checked }));
      continue;
    }
    const select = byId<HTMLSelectElement>(row.control);
    select.addEventListener('change', () => {
      if (!row.values.includes(select.value)) return;
      update(row.choose ? row.choose(select.value, state()) : { [row.field]: select.value });
    });
  }
}
