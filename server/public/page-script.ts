import { createHash } from 'node:crypto';

/**
 * The status page's one script, served as a file beside the page (`page.js`), so that the page's
 * Content-Security-Policy allows it with `script-src 'self'` and never needs 'unsafe-inline'.
 * Everything it does is an enhancement of a page that is complete without it:
 *
 * - times, written in UTC, are shown in the visitor's time zone and language (the UTC time stays
 *   in the element's title);
 * - the 90 days of each component are one stop of the Tab key, the arrow keys (and Home, End)
 *   moving between days; without the script every day is a stop of its own;
 * - the page's content is fetched again every 60 seconds while the tab is visible and swapped in
 *   part by part: parts that did not change are kept as they are (with what is typed in them), the
 *   focus stays where it was, and the "Updated" line says when the content was made.
 */

/** How often the page fetches itself again, in milliseconds. */
export const REFRESH_MS = 60_000;

/** The file's name, beside the page (`/status/{slug}/page.js`, or `page.js` in a static copy). */
export const PAGE_SCRIPT_FILE = 'page.js';

export const PAGE_SCRIPT = `(() => {
'use strict';
const REFRESH_MS = ${REFRESH_MS};
const main = () => document.getElementById('main');
const format = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short' });

/** Times written in UTC, shown in the visitor's zone; the UTC text stays as the title. */
function localTimes(root) {
  for (const el of root.querySelectorAll('time[datetime*="T"]')) {
    if (el.dataset.local) continue;
    const ms = Date.parse(el.getAttribute('datetime'));
    if (Number.isNaN(ms)) continue;
    el.title = el.textContent;
    el.textContent = format.format(ms);
    el.dataset.local = '1';
  }
}

/** One Tab stop per bar: today's day, or the day last focused in it. */
function rovingBars(root) {
  for (const bar of root.querySelectorAll('ol.bar')) {
    const days = bar.children;
    for (let i = 0; i < days.length; i++) days[i].tabIndex = i === days.length - 1 ? 0 : -1;
  }
}

function enhance(root) {
  localTimes(root);
  rovingBars(root);
}

const shown = (el) => el.getClientRects().length > 0;

document.addEventListener('focusin', (event) => {
  const day = event.target;
  if (!(day instanceof HTMLLIElement) || !day.parentElement || !day.parentElement.classList.contains('bar')) return;
  for (const other of day.parentElement.children) other.tabIndex = other === day ? 0 : -1;
});

document.addEventListener('keydown', (event) => {
  const day = event.target;
  if (!(day instanceof HTMLLIElement) || !day.parentElement || !day.parentElement.classList.contains('bar')) return;
  // Days hidden on a narrow window (the oldest 60) are skipped.
  const days = [...day.parentElement.children].filter(shown);
  const at = days.indexOf(day);
  const to = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: days.length - 1 }[event.key];
  if (to === undefined || at < 0) return;
  event.preventDefault();
  const next = days[Math.max(0, Math.min(days.length - 1, to))];
  if (next) next.focus();
});

/** What identifies a part of the page across two versions of it. */
function keyOf(el) {
  return el.id || el.getAttribute('aria-labelledby') || el.tagName + '.' + el.className;
}

/** The child indexes from \`root\` down to \`el\`. */
function pathTo(root, el) {
  const path = [];
  for (let node = el; node && node !== root; node = node.parentElement) {
    if (!node.parentElement) return null;
    path.unshift([...node.parentElement.children].indexOf(node));
  }
  return path;
}

function follow(root, path) {
  let node = root;
  for (const i of path) node = node && node.children[i];
  return node;
}

/** The markup each part had when it was put in (before enhance changed it). */
const served = new Map();

function swap(next) {
  const current = main();
  const focused = document.activeElement;
  const parts = new Map([...current.children].map((el) => [keyOf(el), el]));
  const kept = [];
  let restore = null;
  for (const fresh of [...next.children]) {
    const key = keyOf(fresh);
    const old = parts.get(key);
    const markup = fresh.outerHTML;
    if (old && served.get(key) === markup) {
      kept.push(old);
      continue;
    }
    const part = document.importNode(fresh, true);
    enhance(part);
    served.set(key, markup);
    if (old && focused && old !== focused && old.contains(focused)) restore = { part, path: pathTo(old, focused) };
    kept.push(part);
  }
  current.replaceChildren(...kept);
  if (restore && restore.path) {
    const target = follow(restore.part, restore.path);
    if (target instanceof HTMLElement) target.focus({ preventScroll: true });
  }
}

let last = Date.now();
let running = false;

async function refresh() {
  if (running || document.hidden) return;
  running = true;
  last = Date.now();
  try {
    const answer = await fetch(location.pathname + location.search, { headers: { accept: 'text/html' }, cache: 'no-store', credentials: 'omit' });
    if (!answer.ok) throw new Error(String(answer.status));
    const doc = new DOMParser().parseFromString(await answer.text(), 'text/html');
    const next = doc.getElementById('main');
    if (!next) throw new Error('no content');
    swap(next);
    document.title = doc.title;
  } catch {
    // The page stays as it was; its "Updated" line says how old it is, and the next round tries again.
    const line = document.getElementById('updated');
    if (line && !line.querySelector('.stale')) line.insertAdjacentHTML('beforeend', '<span class="stale"> · could not refresh, trying again</span>');
  } finally {
    running = false;
  }
}

function remember() {
  for (const el of main().children) served.set(keyOf(el), el.outerHTML);
}

if (!main()) return;
remember();
enhance(document);
setInterval(() => {
  if (Date.now() - last >= REFRESH_MS - 1000) void refresh();
}, 5000);
// A tab coming back after its content fell due refreshes at once, not at the next tick.
document.addEventListener('visibilitychange', () => {
  if (!document.hidden && Date.now() - last >= REFRESH_MS) void refresh();
});
})();
`;

/** The script's version in its address, so a browser never keeps an older one after an upgrade. */
export const PAGE_SCRIPT_VERSION = createHash('sha256').update(PAGE_SCRIPT).digest('hex').slice(0, 12);
