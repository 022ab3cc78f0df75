// @ts-check
// The workspace picker: lists the sandbox's workspaces and opens the inspector of the one chosen
// (/ws/{name}/_sandbox/ui; the default one at /_sandbox/ui). The admin token, kept per tab, goes along.
import { api, WORKSPACE } from './api.js';
import { LIST_MAX } from './page.js';

/** Fills the picker with the sandbox's workspaces (once wired, a choice opens that workspace's page). */
export async function workspacePicker() {
  const select = /** @type {HTMLSelectElement | null} */ (document.getElementById('workspace'));
  if (!select) return;
  if (!select.dataset.wired) {
    select.dataset.wired = 'true';
    select.addEventListener('change', () => {
      const name = select.value;
      location.assign(name === 'default' ? '/_sandbox/ui' : `/ws/${name}/_sandbox/ui`);
    });
  }
  let names = [WORKSPACE];
  try {
    const { workspaces } = /** @type {{ workspaces: Array<{ name: string }> }} */ (
      await api(`/workspaces?limit=${LIST_MAX}`, { server: true })
    );
    names = workspaces.map((w) => w.name);
    if (!names.includes(WORKSPACE)) names.push(WORKSPACE);
  } catch {
    // Without the token yet, or an older sandbox: the current workspace alone.
  }
  if (select.dataset.names === names.join(',')) return;
  select.dataset.names = names.join(',');
  select.replaceChildren(
    ...names.map((name) => {
      const option = document.createElement('option');
      option.value = name;
      option.textContent = name;
      option.selected = name === WORKSPACE;
      return option;
    }),
  );
}
