import { BUILT_IN_THEME } from './session.js';

/**
 * The studio's own page. Its script (and only it: a nonce) picks what to preview, shows it in tabs
 * (document, printed pages, email, channel payloads) and reloads them when the server says a file
 * changed. The report itself is shown in a sandboxed iframe
 * served with a CSP that allows no script and no request but data: images: the renderer's rules.
 */
export function studioPage(nonce: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>reportd studio</title>
<style>
body { margin: 0; font: 14px system-ui, sans-serif; color: #1d2430; background: #eef1f4; }
header { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; padding: 8px 12px; background: #fff; border-bottom: 1px solid #d5dae1; }
header label { display: flex; gap: 4px; align-items: center; }
details { position: relative; }
details > div { position: absolute; z-index: 1; background: #fff; border: 1px solid #d5dae1; padding: 6px 10px; }
#problems { display: none; margin: 0; padding: 8px 12px; background: #fff1f0; color: #a8071a; border-bottom: 1px solid #ffa39e; font: 13px ui-monospace, monospace; white-space: pre-wrap; }
#problems.shown { display: block; }
nav { display: flex; gap: 2px; padding: 8px 12px 0; }
nav button { border: 1px solid #d5dae1; border-bottom: none; background: #e2e6eb; padding: 6px 14px; cursor: pointer; font: inherit; }
nav button[aria-selected="true"] { background: #fff; font-weight: 600; }
main > section { padding: 12px; background: #fff; margin: 0 12px 12px; border: 1px solid #d5dae1; }
iframe { width: 100%; background: #fff; border: 1px solid #d5dae1; }
#doc { height: calc(100vh - 170px); }
#email { height: 60vh; }
#pages { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
#pages img { background: #fff; border: 1px solid #d5dae1; box-shadow: 0 1px 3px rgba(0,0,0,.15); }
pre { white-space: pre-wrap; background: #f7f8fa; border: 1px solid #d5dae1; padding: 8px; overflow: auto; font: 12px ui-monospace, monospace; }
</style>
</head>
<body>
<header>
  <strong>reportd studio</strong>
  <label>Account <select id="account"></select></label>
  <label>Set <select id="set"></select></label>
  <label>Run <select id="run"></select></label>
  <label>Report <select id="report"><option value="">(none)</option></select></label>
  <label>Mode <select id="mode"><option value="">(report's)</option><option value="per_set">per set</option><option value="digest">digest</option></select></label>
  <label>Locale <select id="locale"><option value="">(report's)</option></select></label>
  <label>Paper <select id="paper"><option value="">(report's)</option><option>A4</option><option>Letter</option><option>Legal</option></select></label>
  <label>Orientation <select id="orientation"><option value="">(report's)</option><option>portrait</option><option>landscape</option></select></label>
  <label>Theme <select id="theme"><option value="">(report's)</option><option>${BUILT_IN_THEME}</option></select></label>
  <details><summary>Sections</summary><div id="sections"></div></details>
  <a id="pdf" download>Print PDF</a>
  <span id="status"></span>
</header>
<pre id="problems" role="alert"></pre>
<nav role="tablist">
  <button role="tab" data-tab="doc-tab" aria-selected="true">Document</button>
  <button role="tab" data-tab="pages-tab">Pages</button>
  <button role="tab" data-tab="email-tab">Email</button>
  <button role="tab" data-tab="slack-tab">Slack</button>
  <button role="tab" data-tab="teams-tab">Teams</button>
  <button role="tab" data-tab="webhook-tab">Webhook</button>
</nav>
<main>
  <section id="doc-tab" role="tabpanel"><iframe id="doc" title="The printed document" sandbox></iframe></section>
  <section id="pages-tab" role="tabpanel" hidden><p id="pages-note"></p><div id="pages" aria-label="The printed PDF, page by page"></div></section>
  <section id="email-tab" role="tabpanel" hidden>
    <div><strong>Subject:</strong> <span id="subject"></span></div>
    <iframe id="email" title="The email's HTML part" sandbox></iframe>
    <h3>Text part</h3><pre id="text"></pre>
  </section>
  <section id="slack-tab" role="tabpanel" hidden></section>
  <section id="teams-tab" role="tabpanel" hidden></section>
  <section id="webhook-tab" role="tabpanel" hidden></section>
</main>
<script nonce="${nonce}">
const $ = (id) => document.getElementById(id);
const LABELS = { slack: 'Slack', teams: 'Teams', webhook: 'webhook' };
let options = { accounts: [], reports: [], locales: [], sections: [] };
let version = 0;
let customSections = false;
let tab = 'doc-tab';
let shownPages = '';
function option(value, label) { const o = document.createElement('option'); o.value = value; o.textContent = label; return o; }
function fill(select, items, keep) {
  const before = select.value;
  select.replaceChildren(...items.map(([value, label]) => option(value, label)));
  if (keep && items.some(([v]) => String(v) === before)) select.value = before;
}
function checkedSections() { return Array.from($('sections').querySelectorAll('input:checked'), (i) => i.value); }
function params() {
  const p = new URLSearchParams();
  for (const id of ['account', 'set', 'run', 'report', 'mode', 'locale', 'paper', 'orientation', 'theme']) if ($(id).value) p.set(id, $(id).value);
  if (customSections) p.set('sections', checkedSections().join(','));
  p.set('v', String(version));
  return p.toString();
}
function pickers() {
  const account = options.accounts.find((a) => a.name === $('account').value) || options.accounts[0];
  fill($('set'), (account ? account.sets : []).map((s) => [s.id, s.name + ' (#' + s.id + ')']), true);
  const set = account && (account.sets.find((s) => String(s.id) === $('set').value) || account.sets[0]);
  fill($('run'), (set ? set.runs : []).map((r) => [r.id, r.name]), true);
}
/** The report's own sections, until the author ticks a box. */
function sections() {
  const report = options.reports.find((r) => r.name === $('report').value);
  const on = report ? report.sections : options.sections;
  customSections = false;
  for (const box of $('sections').querySelectorAll('input')) box.checked = on.includes(box.value);
}
function payloads(type, channels) {
  const shown = channels.filter((c) => c.type === type);
  $(type + '-tab').replaceChildren(...shown.flatMap((c) => {
    const title = document.createElement('h3');
    title.textContent = c.name ? 'Channel "' + c.name + '"' : 'Example: this report has no ' + LABELS[type] + ' channel';
    const body = document.createElement('pre');
    body.className = 'payload';
    // textContent: the payloads quote API strings, shown as text, never parsed as HTML.
    body.textContent = JSON.stringify(c.payload, null, 2);
    return [title, body];
  }));
}
async function show() {
  const q = params();
  $('doc').src = '/preview/doc?' + q;
  $('email').src = '/preview/email?' + q;
  $('pdf').href = '/pdf?' + q;
  const messages = await fetch('/api/messages?' + q).then((r) => r.json()).catch(() => null);
  if (messages && q === params()) {
    $('subject').textContent = messages.subject;
    $('text').textContent = messages.text;
    for (const type of ['slack', 'teams', 'webhook']) payloads(type, messages.channels);
  }
  if (tab === 'pages-tab') pages();
}
/** The printed PDF as images: asked for only while the Pages tab is open, once per render. */
async function pages() {
  const q = params();
  if (shownPages === q) return;
  shownPages = q;
  $('pages-note').textContent = 'printing through the render pool…';
  const answer = await fetch('/api/pages?' + q).then((r) => r.json()).catch((e) => ({ count: 0, error: String(e) }));
  if (q !== params()) return;
  if (answer.error) { shownPages = ''; $('pages-note').textContent = 'not printed: ' + answer.error; return; }
  $('pages-note').textContent = answer.note || answer.count + ' printed page' + (answer.count === 1 ? '' : 's');
  $('pages').replaceChildren(...Array.from({ length: answer.count }, (_, i) => {
    const img = document.createElement('img');
    img.alt = 'page ' + (i + 1);
    img.src = '/pages/' + (i + 1) + '.png?' + q;
    return img;
  }));
}
function select(next) {
  tab = next;
  for (const button of document.querySelectorAll('nav button')) button.setAttribute('aria-selected', String(button.dataset.tab === tab));
  for (const panel of document.querySelectorAll('main > section')) panel.hidden = panel.id !== tab;
  if (tab === 'pages-tab') pages();
}
function problems(state) {
  $('problems').textContent = state.error ? state.error.join('\\n') : '';
  $('problems').classList.toggle('shown', Boolean(state.error));
  $('status').textContent = state.error ? 'template error — showing the last good render' : 'rendered ' + new Date().toLocaleTimeString();
}
async function start() {
  options = await fetch('/api/options').then((r) => r.json());
  fill($('account'), options.accounts.map((a) => [a.name, a.name]), false);
  for (const r of options.reports) $('report').append(option(r.name, r.name));
  for (const r of options.reports) if (r.themed) $('theme').append(option(r.name, r.name + "'s theme"));
  for (const l of options.locales) $('locale').append(option(l, l));
  for (const name of options.sections) {
    const label = document.createElement('label');
    const box = document.createElement('input');
    box.type = 'checkbox'; box.value = name;
    box.addEventListener('change', () => { customSections = true; show(); });
    label.append(box, ' ' + name);
    $('sections').append(label);
  }
  sections();
  pickers();
  for (const id of ['account', 'set']) $(id).addEventListener('change', () => { pickers(); show(); });
  $('report').addEventListener('change', () => { sections(); show(); });
  for (const id of ['run', 'mode', 'locale', 'paper', 'orientation', 'theme']) $(id).addEventListener('change', show);
  for (const button of document.querySelectorAll('nav button')) button.addEventListener('click', () => select(button.dataset.tab));
  const state = await fetch('/api/state?' + params()).then((r) => r.json());
  version = state.version; problems(state);
  await show();
  const events = new EventSource('/events');
  events.onmessage = (event) => {
    const next = JSON.parse(event.data);
    problems(next);
    if (!next.error && next.version !== version) { version = next.version; show(); }
  };
}
start();
</script>
</body>
</html>
`;
}
