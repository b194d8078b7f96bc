import { clientMatrix, revisionMatrix, untestableMusts, type RequirementResult, type Results, type RevisionCell } from '../engine/results.js';
import { htmlEscape } from '../kit/escape.js';
import { truncate } from '../kit/text.js';
import type { CheckRecord } from '../engine/verdict.js';
import type { Exchange, SseEvent } from '../wire/exchange.js';
import { checkLabel, failedChecks, failsRun, formatValue, unexercisedWords } from './common.js';
import { BODY, PALETTE } from '../kit/page-style.js';
import { describeConsumption } from './consumption.js';
import { describeProperty } from './property-text.js';
import { statusWord } from './summary-md.js';

/*
 * report.html: one self-contained page for a person: the requirement matrix (filterable by status and
 * text) and every failure and warning with expected vs actual and its wire log (requests, responses,
 * SSE events with arrival times). No network at all: CSS and the small filter script are inline and a
 * Content-Security-Policy forbids fetching anything. Every value from the run is escaped; the script
 * holds no data, so nothing from the target can reach it.
 */

/** Largest body shown per request or response; the rest is cut with a note. */
const MAX_BODY = 64 * 1024;
/** Exchanges shown per failing check. */
const MAX_EXCHANGES = 40;
/** SSE events shown per response. */
const MAX_EVENTS = 200;

const h = htmlEscape;

/** A requirement id as a safe fragment identifier. */
function anchor(prefix: string, id: string): string {
  return `${prefix}-${id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

const STATUS_LABEL: Record<string, string> = { pass: 'pass', fail: 'fail', warn: 'warn', 'not-testable': 'not testable', 'not-applicable': 'not applicable', untested: 'untested', error: 'harness error' };

function badge(status: string, extra = ''): string {
  return `<span class="badge s-${h(status)}">${h(STATUS_LABEL[status] ?? status)}${extra ? ` ${h(extra)}` : ''}</span>`;
}

/** Pretty-prints JSON text when it parses; otherwise returns it unchanged. Cut to MAX_BODY either way. */
function prettyBody(text: string): string {
  let out = text;
  if (text.length < MAX_BODY * 4 && /^\s*[[{]/.test(text)) {
    try {
      out = JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      out = text;
    }
  }
  return truncate(out, MAX_BODY);
}

function headersTable(headers: Record<string, string>): string {
  const rows = Object.entries(headers).map(([k, v]) => `<tr><th>${h(k)}</th><td>${h(v)}</td></tr>`).join('');
  return rows ? `<table class="headers">${rows}</table>` : '<p class="muted">no headers</p>';
}

function eventsTable(events: SseEvent[]): string {
  const rows = events.slice(0, MAX_EVENTS).map((e) => `<tr><td class="num">${h(String(e.at))} ms</td><td>${h(e.event ?? 'message')}</td><td>${h(e.id ?? '')}</td><td><pre>${h(truncate(e.data, MAX_BODY))}</pre></td></tr>`).join('');
  const more = events.length > MAX_EVENTS ? `<p class="muted">${events.length - MAX_EVENTS} more events not shown</p>` : '';
  return `<table class="sse"><thead><tr><th>arrived</th><th>event</th><th>id</th><th>data</th></tr></thead><tbody>${rows}</tbody></table>${more}`;
}

/** What an SSE event of an MCP stream carries, for its mark on the timeline. */
function eventKind(data: string): 'progress' | 'result' | 'error' | 'other' {
  if (/"method"\s*:\s*"notifications\/progress"/.test(data)) return 'progress';
  if (/"result"\s*:/.test(data)) return 'result';
  if (/"error"\s*:/.test(data)) return 'error';
  return 'other';
}

/**
 * A stream on one time axis: the request sent (0), the headers, each event by kind, the end. Where a
 * streaming check fails on order or spacing, the picture says at a glance what the events table spells out.
 */
function timelineSvg(headersAt: number, endAt: number, events: SseEvent[]): string {
  const W = 640;
  const H = 46;
  const span = Math.max(endAt, ...events.map((e) => e.at), 1);
  const x = (ms: number) => (12 + (ms / span) * (W - 24)).toFixed(1);
  const mark = (ms: number, cls: string, label: string) => `<g class="${cls}"><line x1="${x(ms)}" x2="${x(ms)}" y1="8" y2="30"/><title>${h(label)}</title></g>`;
  const kinds = events.map((e) => eventKind(e.data));
  const marks = [
    mark(0, 't-sent', 'request sent: 0 ms'),
    mark(headersAt, 't-headers', `headers: ${headersAt} ms`),
    ...events.map((e, i) => mark(e.at, `t-${kinds[i]}`, `event ${i + 1} (${kinds[i]}): ${e.at} ms`)),
    mark(endAt, 't-end', `end of stream: ${endAt} ms`),
  ];
  const legend = ['sent', 'headers', ...new Set(kinds), 'end'].map((k) => `<span class="t-key t-${k}">${h(k)}</span>`).join(' ');
  return `<figure class="timeline"><svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="stream timeline"><line class="t-axis" x1="12" x2="${W - 12}" y1="30" y2="30"/>${marks.join('')}<text x="12" y="44">0 ms</text><text x="${W - 12}" y="44" text-anchor="end">${h(String(Math.round(span)))} ms</text></svg><figcaption>${legend}</figcaption></figure>`;
}

function statusClass(status: number): string {
  return status >= 500 ? 'http5' : status >= 400 ? 'http4' : status >= 300 ? 'http3' : 'http2';
}

function exchangeHtml(x: Exchange, i: number): string {
  const parts: string[] = [];
  parts.push(`<div class="line"><span class="n">#${i + 1}</span> <span class="method">${h(x.request.method)}</span> <span class="url">${h(x.request.url)}</span> <span class="muted">${h(x.startedAt)}</span></div>`);
  parts.push(`<details class="hdrs"><summary>request headers (${Object.keys(x.request.headers).length})</summary>${headersTable(x.request.headers)}</details>`);
  if (x.request.body !== undefined && x.request.body !== '') parts.push(`<pre class="body req">${h(prettyBody(x.request.body))}</pre>`);
  const r = x.response;
  if (!r) {
    parts.push(`<div class="line error">no response${x.error ? `: ${h(x.error)}` : ''}</div>`);
  } else {
    const type = r.headers['content-type'];
    const open = r.closed === false ? (r.readUntil === 'response' ? ' <span class="badge">read up to the response</span>' : ' <span class="badge s-warn">stream still open at the deadline</span>') : '';
    parts.push(`<div class="line"><span class="status ${statusClass(r.status)}">${h(String(r.status))}</span>${type ? ` <span class="ctype">${h(type)}</span>` : ''} <span class="muted">headers after ${h(String(r.headersAt))} ms, end after ${h(String(r.endAt))} ms</span>${open}</div>`);
    parts.push(`<details class="hdrs"><summary>response headers (${Object.keys(r.headers).length})</summary>${headersTable(r.headers)}</details>`);
    if (r.events && r.events.length > 0) parts.push(timelineSvg(r.headersAt, r.endAt, r.events), eventsTable(r.events));
    else if (r.body !== undefined && r.body !== '') parts.push(`<pre class="body res">${h(prettyBody(r.body))}</pre>`);
    else parts.push('<p class="muted">empty body</p>');
    if (x.error) parts.push(`<div class="line error">${h(x.error)}</div>`);
  }
  return `<li class="exchange">${parts.join('\n')}</li>`;
}

function wireHtml(wire: Exchange[]): string {
  if (wire.length === 0) return '<p class="muted">No HTTP exchange was recorded for this check.</p>';
  const more = wire.length > MAX_EXCHANGES ? `<p class="muted">${wire.length - MAX_EXCHANGES} more exchanges not shown (see results.json)</p>` : '';
  // Collapsed: a failure reads by its message, expected and actual first; the exchanges are its evidence.
  return `<details class="wire"><summary>Wire log: ${wire.length} exchange${wire.length === 1 ? '' : 's'}</summary><ol class="exchanges">${wire.slice(0, MAX_EXCHANGES).map(exchangeHtml).join('\n')}</ol>${more}</details>`;
}

/** The timeline of a check's first stream, out of its collapsed wire log: a streaming failure is read on it. */
function streamOf(c: CheckRecord): string {
  const stream = c.wire.find((x) => x.response?.events && x.response.events.length > 0)?.response;
  return stream ? timelineSvg(stream.headersAt, stream.endAt, stream.events!) : '';
}

function checkHtml(r: RequirementResult, c: CheckRecord): string {
  const obs = c.observations.length ? `<ul class="obs">${c.observations.map((o) => `<li>observed: ${h(o)}</li>`).join('')}</ul>` : '';
  return `<div class="check">
<h4>${h(checkLabel(r, c))} <span class="muted">${h(c.suite)}, ${c.revision ? `protocol ${h(c.revision)}, ` : ''}${h(String(c.durationMs))} ms</span></h4>
${c.message ? `<p class="message">${h(c.message)}</p>` : ''}
${c.property ? `<p class="property">${h(describeProperty(c.property))}</p>` : ''}
<div class="ea"><div><h5>expected</h5><pre>${h(truncate(formatValue(c.expected), MAX_BODY))}</pre></div><div><h5>actual</h5><pre>${h(truncate(formatValue(c.actual), MAX_BODY))}</pre></div></div>
${streamOf(c)}
${c.replay ? `<p class="replay">replay: <code>${h(c.replay)}</code></p>` : ''}
${obs}
${wireHtml(c.wire)}
</div>`;
}

function failureHtml(r: RequirementResult, results: Results): string {
  const note = r.baseline === 'expected-failure' ? '<p class="note">Listed in the baseline as an expected failure: reported, not counted against the run.</p>'
    : r.baseline === 'stale' ? '<p class="note">Listed in the baseline as an expected failure, but it no longer fails: remove it from the baseline file (a stale entry fails the run).</p>'
      : r.status === 'warn' && !results.strict ? '<p class="note">Below MUST: fails the run only with --strict.</p>' : '';
  const search = `${r.id} ${r.group} ${r.level} ${r.source} ${r.text}`.toLowerCase();
  return `<article class="failure" id="${anchor('req', r.id)}" data-status="${h(r.status)}" data-search="${h(search)}">
<h3><code>${h(r.id)}</code> ${badge(r.status, r.baseline ? `(${r.baseline === 'stale' ? 'stale baseline' : 'baseline'})` : '')} <span class="level">${h(r.level)}</span> <a class="to-matrix" href="#${anchor('m', r.id)}">matrix</a></h3>
<p class="source">${h(r.source)}</p>
<blockquote>${h(r.text)}</blockquote>
${note}
${foldedChecks(failedChecks(r)).map(({ first, alike }) => checkHtml(r, first) + alikeHtml(r, alike)).join('\n')}
</article>`;
}

/** A check's failure with its numbers masked: checks that differ only there (a revision, a count) failed alike. */
const failureShape = (c: CheckRecord) => `${c.status} ${(c.message ?? c.reason ?? '').replace(/\d+/g, '#')}`;

/** Failed checks grouped by failure shape, in order: each group shown once, the others counted under it. */
function foldedChecks(checks: CheckRecord[]): { first: CheckRecord; alike: CheckRecord[] }[] {
  const groups = new Map<string, { first: CheckRecord; alike: CheckRecord[] }>();
  for (const c of checks) {
    const shape = failureShape(c);
    const g = groups.get(shape);
    if (g) g.alike.push(c);
    else groups.set(shape, { first: c, alike: [] });
  }
  return [...groups.values()];
}

function alikeHtml(r: RequirementResult, alike: CheckRecord[]): string {
  if (alike.length === 0) return '';
  const items = alike.map((c) => `<li>${h(checkLabel(r, c))}${c.message ? `: ${h(truncate(c.message, 300))}` : ''}${c.replay ? `<div class="replay"><code>${h(c.replay)}</code></div>` : ''}</li>`).join('');
  return `<details class="alike"><summary>and ${alike.length} more check${alike.length === 1 ? '' : 's'} that failed the same way</summary><ul>${items}</ul></details>`;
}

/** The MUST rows no check could exercise, right under the verdict: a pass that proved nothing there must not read as a full pass. */
function unexercisedHtml(results: Results): string {
  const rows = untestableMusts(results.requirements);
  if (rows.length === 0) return '';
  const { head, why } = unexercisedWords(rows.length, results.strict);
  return `<p class="unexercised">${h(head)} ${h(why)}: ${rows.map((r) => `<a href="#${anchor('m', r.id)}"><code>${h(r.id)}</code></a>`).join(', ')}</p>`;
}

function matrixRow(r: RequirementResult): string {
  const checks = r.checks.length === 0
    ? '<li class="c-untested muted">no check verifies this requirement</li>'
    : r.checks.map((c) => {
      const detail = c.status === 'not-testable' ? c.reason ?? 'no reason given' : c.status === 'fail' || c.status === 'error' ? c.message ?? '' : '';
      const status = c.notApplicable ? 'not-applicable' : c.status;
      return `<li class="c-${h(status)}">${badge(status)} ${h(checkLabel(r, c))}${detail ? `<div class="detail">${h(truncate(detail, 500))}</div>` : ''}</li>`;
    }).join('');
  const evidence = failedChecks(r).length ? ` <a href="#${anchor('req', r.id)}">evidence</a>` : '';
  const search = `${r.id} ${r.group} ${r.level} ${r.source} ${r.text}`.toLowerCase();
  return `<tr class="req" id="${anchor('m', r.id)}" data-id="${h(r.id)}" data-status="${h(r.status)}" data-search="${h(search)}">
<td><code>${h(r.id)}</code><div class="text">${h(r.text)}</div></td><td>${h(r.group)}</td><td>${h(r.level)}</td><td>${badge(r.status, r.baseline ? `(${r.baseline === 'stale' ? 'stale baseline' : 'baseline'})` : '')}${evidence}</td><td>${h(r.source)}</td><td><ul class="checks">${checks}</ul></td></tr>`;
}

const CELL_LABEL: Record<'not-applicable' | 'not-run', string> = { 'not-applicable': '—', 'not-run': 'not run' };

/** A cell of the revision and client matrices: a status badge, or a muted dash where nothing ran. */
const cellHtml = (v: RevisionCell) => (v === 'not-applicable' || v === 'not-run' ? `<span class="muted">${h(CELL_LABEL[v])}</span>` : badge(v));

/** The revision x row matrix of the revision-dependent requirements (empty when none spoke a revision). */
function revisionSection(reqs: RequirementResult[]): string {
  const m = revisionMatrix(reqs);
  if (m.rows.length === 0) return '';
  const rows = m.rows.map((row) => `<tr><td><a href="#${anchor('m', row.id)}"><code>${h(row.id)}</code></a></td><td>${h(row.level)}</td>${m.revisions.map((rev) => `<td>${cellHtml(row.cells[rev]!)}</td>`).join('')}</tr>`).join('\n');
  return `<section id="revisions">
<h2>By protocol revision (${m.rows.length})</h2>
<p class="muted">Requirements that depend on the revision ran once per revision the target speaks, each with that revision's headers. —: does not apply to the revision.</p>
<table class="revisions">
<thead><tr><th>Requirement</th><th>Level</th>${m.revisions.map((rev) => `<th>${h(rev)}</th>`).join('')}</tr></thead>
<tbody>
${rows}
</tbody>
</table>
</section>`;
}

/** The interop matrix, client x step (each cell links to its row), with the revision each client negotiated. */
function clientSection(reqs: RequirementResult[]): string {
  const m = clientMatrix(reqs);
  if (m.rows.length === 0) return '';
  const rows = m.rows.map((row) => `<tr><td>${h(row.sdk)}</td><td>${h(row.revision ?? '—')}</td>${m.steps.map((step) => `<td><a href="#${anchor('m', `interop-${row.client}-${step}`)}">${cellHtml(row.cells[step]!)}</a></td>`).join('')}</tr>`).join('\n');
  return `<section id="clients">
<h2>SDK clients (${m.rows.length})</h2>
<p class="muted">Each official SDK client ran as its own program, configured as an <code>mcpServers</code> entry (URL plus Authorization header), and through the stdio proxy. —: does not apply to this target.</p>
<table class="revisions">
<thead><tr><th>Client</th><th>Revision (HTTP)</th>${m.steps.map((step) => `<th>${h(step)}</th>`).join('')}</tr></thead>
<tbody>
${rows}
</tbody>
</table>
</section>`;
}

const CSS = `
${PALETTE}
* { box-sizing: border-box; }
${BODY}
code, pre, .url, .method { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 12.5px; }
header { padding: 18px 28px 14px; border-bottom: 1px solid var(--line); border-left: 8px solid var(--pass); }
header.fail { border-left-color: var(--fail); }
h1 { margin: 0 0 4px; font-size: 22px; }
h1 .word { color: var(--pass); } header.fail h1 .word { color: var(--fail); }
.verdict-line { margin: 0 0 10px; font-weight: 600; }
.unexercised { margin: 0 0 10px; color: var(--warn, #8a5a00); }
ul.folder-runs { margin: 0 0 10px; padding-left: 18px; }
nav.sections { position: sticky; top: 0; z-index: 2; background: #fff; padding: 6px 24px; border-bottom: 1px solid #ddd; }
nav.sections a { margin-right: 14px; }
details.alike { margin: 6px 0 12px; }
figure.timeline { margin: 6px 0; }
figure.timeline svg line { stroke-width: 2; }
figure.timeline .t-axis { stroke: #999; stroke-width: 1; }
figure.timeline text { font-size: 10px; fill: #666; }
.t-sent line { stroke: #555; } .t-headers line { stroke: #1f6feb; } .t-progress line { stroke: #2da44e; }
.t-result line { stroke: #8250df; stroke-width: 3; } .t-error line { stroke: #cf222e; stroke-width: 3; } .t-other line, .t-end line { stroke: #999; }
.t-key { font-size: 11px; padding: 0 4px; border-left: 3px solid #999; }
.t-key.t-headers { border-color: #1f6feb; } .t-key.t-progress { border-color: #2da44e; } .t-key.t-result { border-color: #8250df; } .t-key.t-error { border-color: #cf222e; } .t-key.t-sent { border-color: #555; }
dl.meta { display: grid; grid-template-columns: max-content 1fr max-content 1fr; gap: 2px 14px; margin: 0; color: var(--muted); }
dl.meta dt { font-weight: 600; } dl.meta dd { margin: 0; color: var(--fg); overflow-wrap: anywhere; }
main { padding: 0 28px 40px; }
nav.filters { position: sticky; top: 0; z-index: 2; display: flex; flex-wrap: wrap; gap: 6px; align-items: center; padding: 10px 28px; background: var(--soft); border-bottom: 1px solid var(--line); }
nav.filters button { font: inherit; padding: 3px 10px; border: 1px solid var(--line); border-radius: 14px; background: #fff; cursor: pointer; }
nav.filters button[aria-pressed="true"] { background: var(--fg); color: #fff; border-color: var(--fg); }
nav.filters input { font: inherit; margin-left: auto; padding: 3px 8px; min-width: 260px; border: 1px solid var(--line); border-radius: 4px; }
nav.filters .shown { color: var(--muted); }
h2 { margin: 22px 0 10px; font-size: 18px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
.badge { display: inline-block; padding: 0 7px; border-radius: 10px; font-size: 12px; font-weight: 600; color: #fff; background: var(--un); white-space: nowrap; }
.s-pass { background: var(--pass); } .s-fail, .s-error { background: var(--fail); } .s-warn { background: var(--warn); } .s-not-testable { background: var(--nt); } .s-not-applicable { background: var(--un); } .s-untested { background: var(--un); }
table { border-collapse: collapse; width: 100%; }
table.revisions { width: auto; } table.revisions th, table.revisions td { border-bottom: 1px solid var(--line); padding: 4px 10px; text-align: left; } table.revisions thead th { background: var(--soft); }
table.matrix th, table.matrix td { border-bottom: 1px solid var(--line); padding: 6px 8px; text-align: left; vertical-align: top; }
table.matrix thead th { background: var(--soft); position: sticky; top: 46px; }
table.matrix .text { color: var(--muted); font-size: 12.5px; max-width: 46ch; }
table.matrix tr.req[data-status="fail"] td:first-child { box-shadow: inset 4px 0 var(--fail); }
table.matrix tr.req[data-status="warn"] td:first-child { box-shadow: inset 4px 0 var(--warn); }
ul.checks { list-style: none; margin: 0; padding: 0; } ul.checks li { margin: 0 0 3px; } ul.checks .badge { font-size: 11px; }
ul.checks .detail { color: var(--muted); font-size: 12.5px; margin-left: 8px; overflow-wrap: anywhere; }
article.failure { border: 1px solid var(--line); border-left: 5px solid var(--fail); border-radius: 4px; padding: 10px 16px; margin: 0 0 16px; }
article.failure[data-status="warn"] { border-left-color: var(--warn); }
article.failure h3 { margin: 0 0 4px; font-size: 16px; } .level { font-weight: 600; color: var(--muted); } .to-matrix { font-size: 12px; margin-left: 6px; }
.source { margin: 0; color: var(--muted); } blockquote { margin: 6px 0; padding: 2px 10px; border-left: 3px solid var(--line); color: #333; }
.note { background: #fff8c5; padding: 4px 8px; border-radius: 3px; }
.check { margin: 10px 0 0; padding-top: 8px; border-top: 1px dashed var(--line); } .check h4 { margin: 0 0 4px; font-size: 14px; }
.message { margin: 4px 0; font-weight: 600; color: var(--fail); } article.failure[data-status="warn"] .message { color: var(--warn); }
.ea { display: grid; grid-template-columns: 1fr 1fr; gap: 10px; } .ea h5 { margin: 4px 0 2px; font-size: 12px; text-transform: uppercase; color: var(--muted); }
pre { margin: 0; padding: 6px 8px; background: var(--soft); border: 1px solid var(--line); border-radius: 3px; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 420px; overflow: auto; }
.replay code { background: var(--soft); padding: 1px 4px; border-radius: 3px; overflow-wrap: anywhere; }
details.wire > summary { cursor: pointer; font-weight: 600; margin: 6px 0; }
ol.exchanges { list-style: none; padding: 0; margin: 0; } li.exchange { border: 1px solid var(--line); border-radius: 4px; padding: 6px 10px; margin: 0 0 8px; }
.line { margin: 2px 0; overflow-wrap: anywhere; } .n { color: var(--muted); } .method { font-weight: 700; }
.status { font-weight: 700; padding: 0 5px; border-radius: 3px; color: #fff; } .http2 { background: var(--pass); } .http3 { background: var(--nt); } .http4 { background: var(--warn); } .http5 { background: var(--fail); }
.ctype { font-family: ui-monospace, monospace; font-size: 12px; } .muted { color: var(--muted); font-weight: normal; } .error { color: var(--fail); font-weight: 600; }
details.hdrs summary { cursor: pointer; color: var(--muted); font-size: 12.5px; }
table.headers th, table.headers td { text-align: left; padding: 1px 8px 1px 0; font-family: ui-monospace, monospace; font-size: 12px; vertical-align: top; overflow-wrap: anywhere; } table.headers th { color: var(--muted); font-weight: normal; white-space: nowrap; }
table.sse { margin-top: 4px; } table.sse th, table.sse td { text-align: left; border-bottom: 1px solid var(--line); padding: 2px 6px; vertical-align: top; font-size: 12.5px; } table.sse td.num { white-space: nowrap; font-variant-numeric: tabular-nums; text-align: right; } table.sse th:nth-child(-n+3), table.sse td:nth-child(-n+3) { width: 1%; white-space: nowrap; } table.sse pre { max-height: 200px; }
tr[hidden], article[hidden] { display: none; }
@media (max-width: 900px) { .ea { grid-template-columns: 1fr; } dl.meta { grid-template-columns: max-content 1fr; } }
`;

/*
 * Filters the matrix and the failure cards by status (buttons) and text (search box); `#status=fail` in the address preselects a
 * status. It reads only the page's own attributes. It marks <html data-ready> when it has run (the render test looks).
 */
const SCRIPT = `
(function () {
  var nav = document.getElementById('filters');
  var rows = Array.prototype.slice.call(document.querySelectorAll('tr.req'));
  var cards = Array.prototype.slice.call(document.querySelectorAll('article.failure'));
  var buttons = Array.prototype.slice.call(nav.querySelectorAll('button'));
  var q = document.getElementById('q');
  var shown = document.getElementById('shown');
  var status = 'all';
  function apply() {
    var text = q.value.trim().toLowerCase(), n = 0;
    rows.forEach(function (r) {
      var ok = (status === 'all' || r.getAttribute('data-status') === status) && (!text || r.getAttribute('data-search').indexOf(text) !== -1);
      r.hidden = !ok; if (ok) n++;
    });
    cards.forEach(function (c) {
      c.hidden = !((status === 'all' || c.getAttribute('data-status') === status) && (!text || c.getAttribute('data-search').indexOf(text) !== -1));
    });
    buttons.forEach(function (b) { b.setAttribute('aria-pressed', String(b.getAttribute('data-filter') === status)); });
    shown.textContent = n + ' of ' + rows.length + ' requirements shown';
  }
  buttons.forEach(function (b) { b.addEventListener('click', function () { status = b.getAttribute('data-filter'); apply(); }); });
  q.addEventListener('input', apply);
  var m = /status=([a-z-]+)/.exec(location.hash);
  if (m && buttons.some(function (b) { return b.getAttribute('data-filter') === m[1]; })) status = m[1];
  nav.hidden = false;
  apply();
  document.documentElement.setAttribute('data-ready', '1');
})();
`;

/**
 * The self-contained HTML report of a run. `sections` are the other runs of its report folder, already
 * rendered by their own writers (src/reports/folder composes them): appended as they are, after the matrix.
 */
/** Another run's section of the folder's page (a load or probe run), and its line in the page's header. */
export interface FolderSection {
  id: string;
  /** `Load`, `Rate-limit probe`. */
  title: string;
  /** Its verdict word (PASS, FAIL, INCONCLUSIVE) and when it started. */
  word: string;
  startedAt: string;
  html: string;
}

export function renderHtml(results: Results, sections: readonly FolderSection[] = [], notes: readonly string[] = []): string {
  const t = results.totals;
  const reqs = results.requirements;
  const word = statusWord(results);
  const shownFailures = reqs.filter((r) => r.status === 'fail' || r.status === 'warn' || r.status === 'error' || r.baseline === 'stale');
  const order = (r: RequirementResult) => (failsRun(r, results.strict) ? 0 : r.status === 'fail' ? 1 : 2);
  shownFailures.sort((a, b) => order(a) - order(b));
  const meta: [string, string][] = [
    ['target', `${results.target.kind} ${results.target.baseUrl}`], ['MCP endpoint', results.target.mcpUrl],
    ['profile', results.profile], ['protocol', results.protocolRevision],
    ['seed', String(results.seed)], ['strict', results.strict ? 'yes (failing SHOULDs and unexercised MUSTs fail the run)' : 'no'],
    ['started', results.startedAt], ['duration', `${(results.durationMs / 1000).toFixed(1)} s`],
    ['tool', `${results.tool.name} ${results.tool.version}`], ['exit code', String(results.exitCode)],
    ...(results.consumption ? [['consumed', describeConsumption(results.consumption)] as [string, string]] : []),
  ];
  const filters: [string, string, number][] = [
    ['all', 'All', reqs.length], ['fail', 'Fail', t.fail], ['warn', 'Warn', t.warn],
    ['not-testable', 'Not testable', t.notTestable],
    ...(t.notApplicable ? [['not-applicable', 'Not applicable', t.notApplicable] as [string, string, number]] : []),
    ['untested', 'Untested', t.untested], ['pass', 'Pass', t.pass],
    ...(t.error ? [['error', 'Harness error', t.error] as [string, string, number]] : []),
  ];
  // Rendered first: the navigation links a section only where the page has it.
  const revisions = revisionSection(reqs);
  const clients = clientSection(reqs);
  const html = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'">
<meta name="referrer" content="no-referrer">
<title>MCP conformance: ${h(word)} (${h(results.target.mcpUrl)})</title>
<style>${CSS}</style>
</head>
<body>
<header class="${results.exitCode === 0 ? 'pass' : 'fail'}">
<h1>MCP conformance: <span class="word">${h(word)}</span></h1>
<p class="verdict-line">${h(results.verdict)}</p>
${unexercisedHtml(results)}
${sections.length || notes.length ? `<ul class="folder-runs">${sections.map((x) => `<li><a href="#${h(x.id)}">${h(x.title)}: <b>${h(x.word)}</b></a> <span class="muted">started ${h(x.startedAt)}</span></li>`).join('')}${notes.map((n) => `<li class="muted">${h(n)}</li>`).join('')}</ul>` : ''}
<dl class="meta">${meta.map(([k, v]) => `<dt>${h(k)}</dt><dd>${h(v)}</dd>`).join('')}</dl>
</header>
<nav class="sections" aria-label="Sections"><a href="#failures">Failures</a>${revisions ? ' <a href="#revisions">Revisions</a>' : ''}${clients ? ' <a href="#clients">SDK clients</a>' : ''} <a href="#matrix">Matrix</a>${sections.map((x) => ` <a href="#${h(x.id)}">${h(x.title)}</a>`).join('')}</nav>
<nav class="filters" id="filters" aria-label="Filter the requirement matrix" hidden>
${filters.map(([key, label, n]) => `<button type="button" data-filter="${key}" aria-pressed="${key === 'all'}">${label} <b>${n}</b></button>`).join('\n')}
<span class="shown" id="shown"></span>
<input type="search" id="q" placeholder="Filter by id, group, level, source, text" aria-label="Filter by text">
</nav>
<main>
<section id="failures">
<h2>Failures and warnings (${shownFailures.length})</h2>
${shownFailures.length ? shownFailures.map((r) => failureHtml(r, results)).join('\n') : '<p>No requirement fails or warns.</p>'}
</section>
${revisions}
${clients}
<section id="matrix">
<h2>Requirement matrix (${reqs.length})</h2>
<table class="matrix">
<thead><tr><th>Requirement</th><th>Group</th><th>Level</th><th>Status</th><th>Source</th><th>Checks</th></tr></thead>
<tbody>
${reqs.map(matrixRow).join('\n')}
</tbody>
</table>
</section>
${sections.map((x) => `<div id="${h(x.id)}">${x.html}</div>`).join('')}
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
  return html;
}
