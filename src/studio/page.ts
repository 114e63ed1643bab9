/**
 * The studio's own page. Its script (and only it: a nonce) picks what to preview and reloads the
 * preview when the server says a file changed. The report itself is shown in a sandboxed iframe
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
#problems { display: none; margin: 0; padding: 8px 12px; background: #fff1f0; color: #a8071a; border-bottom: 1px solid #ffa39e; font: 13px ui-monospace, monospace; white-space: pre-wrap; }
#problems.shown { display: block; }
main { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 12px; padding: 12px; }
iframe { width: 100%; background: #fff; border: 1px solid #d5dae1; }
#doc { height: calc(100vh - 110px); }
#email { height: 60vh; }
pre { white-space: pre-wrap; background: #fff; border: 1px solid #d5dae1; padding: 8px; max-height: 30vh; overflow: auto; }
</style>
</head>
<body>
<header>
  <strong>reportd studio</strong>
  <label>Account <select id="account"></select></label>
  <label>Set <select id="set"></select></label>
  <label>Run <select id="run"></select></label>
  <label>Report <select id="report"><option value="">(none)</option></select></label>
  <label>Mode <select id="mode"><option value="per_set">per set</option><option value="digest">digest</option></select></label>
  <label>Locale <select id="locale"><option value="">(report's)</option><option>en-US</option><option>en-GB</option><option>de-DE</option><option>fr-FR</option><option>es-ES</option></select></label>
  <label>Paper <select id="paper"><option value="">(report's)</option><option>A4</option><option>Letter</option><option>Legal</option></select></label>
  <label>Orientation <select id="orientation"><option value="">(report's)</option><option>portrait</option><option>landscape</option></select></label>
  <a id="pdf" target="_blank" rel="noopener">Print PDF</a>
  <span id="status"></span>
</header>
<pre id="problems" role="alert"></pre>
<main>
  <section><iframe id="doc" title="The printed document" sandbox></iframe></section>
  <section>
    <div><strong>Subject:</strong> <span id="subject"></span></div>
    <iframe id="email" title="The email's HTML part" sandbox></iframe>
    <pre id="text"></pre>
  </section>
</main>
<script nonce="${nonce}">
const $ = (id) => document.getElementById(id);
let options = { accounts: [], reports: [] };
let version = 0;
function fill(select, items, keep) {
  const before = select.value;
  select.replaceChildren(...items.map(([value, label]) => { const o = document.createElement('option'); o.value = value; o.textContent = label; return o; }));
  if (keep && items.some(([v]) => String(v) === before)) select.value = before;
}
function params() {
  const p = new URLSearchParams();
  for (const id of ['account', 'set', 'run', 'report', 'mode', 'locale', 'paper', 'orientation']) if ($(id).value) p.set(id, $(id).value);
  p.set('v', String(version));
  return p.toString();
}
function pickers() {
  const account = options.accounts.find((a) => a.name === $('account').value) || options.accounts[0];
  fill($('set'), (account ? account.sets : []).map((s) => [s.id, s.name + ' (#' + s.id + ')']), true);
  const set = account && (account.sets.find((s) => String(s.id) === $('set').value) || account.sets[0]);
  fill($('run'), (set ? set.runs : []).map((r) => [r.id, r.name]), true);
}
async function show() {
  const q = params();
  $('doc').src = '/preview/doc?' + q;
  $('email').src = '/preview/email?' + q;
  $('pdf').href = '/pdf?' + q;
  const email = await fetch('/api/email?' + q).then((r) => r.json()).catch(() => null);
  if (email) { $('subject').textContent = email.subject; $('text').textContent = email.text; }
}
function problems(state) {
  $('problems').textContent = state.error ? state.error.join('\\n') : '';
  $('problems').classList.toggle('shown', Boolean(state.error));
  $('status').textContent = state.error ? 'template error — showing the last good render' : 'rendered ' + new Date().toLocaleTimeString();
}
async function start() {
  options = await fetch('/api/options').then((r) => r.json());
  fill($('account'), options.accounts.map((a) => [a.name, a.name]), false);
  for (const r of options.reports) { const o = document.createElement('option'); o.value = r.name; o.textContent = r.name; $('report').append(o); }
  pickers();
  for (const id of ['account', 'set']) $(id).addEventListener('change', () => { pickers(); show(); });
  for (const id of ['run', 'report', 'mode', 'locale', 'paper', 'orientation']) $(id).addEventListener('change', show);
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
