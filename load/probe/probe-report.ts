/**
 * The probe's reports: probe.json (everything measured), probe.md (for a pull request or a release
 * note), probe.html (self-contained, with the curve: offered rate vs served rate, and the 429 share) and
 * probe-junit.xml (one testcase per verdict, for CI). `writeProbeReports` is their door: the result is
 * scrubbed of the run's secrets before any renderer sees it. `renderProbeSection` is probe.html's body as
 * a fragment, for the report folder's report.html (src/reports/folder).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { htmlEscape, xmlEscape } from '../../src/kit/escape.js';
import { mdCell, mdText } from '../../src/kit/markdown.js';
import { scrubDeep, scrubText, type Secrets } from '../../src/kit/scrub.js';
import { lineChart } from '../../src/kit/svg-chart.js';
import { fmt, type Verdict } from './analysis.js';
import type { ProbeResult } from './probe-result.js';
import { pageStyle, sectionStyle } from '../../src/kit/page-style.js';
import { makeDir } from '../../src/kit/make-dir.js';

export const PROBE_REPORT_FILES = ['probe.json', 'probe.md', 'probe.html', 'probe-junit.xml'] as const;
export const PROBE_JSON = 'probe.json';

/** Whether a parsed probe.json is one this version wrote (a stale or foreign file is not shown). */
export function isProbeResult(value: unknown): value is ProbeResult {
  const r = value as Partial<ProbeResult> | null;
  return typeof r === 'object' && r !== null && r.schemaVersion === 1 && r.tool?.name === 'probe-rate-limit'
    && Array.isArray(r.verdicts) && Array.isArray(r.findings) && Array.isArray(r.steps) && typeof r.target?.description === 'string';
}

const STATUS_WORD: Record<Verdict['status'], string> = { pass: 'pass', fail: 'FAIL', 'not-testable': 'not testable', 'not-requested': 'not requested' };

/**
 * The probe's one word: FAIL when a verdict fails; INCONCLUSIVE when no sustained limit was found, for then
 * nothing about the limit passed (only --expect-rate turns that into a failure); PASS otherwise.
 */
export const verdictWord = (r: ProbeResult) => (r.exitCode === 1 ? 'FAIL' : r.sustained?.ratePerSecond === null ? 'INCONCLUSIVE' : 'PASS');

function cell(text: string): string {
  return mdCell(mdText(text));
}

export function renderProbeMarkdown(r: ProbeResult): string {
  const lines = [
    `# Rate-limit probe: ${verdictWord(r)}`,
    '',
    `Target: ${mdText(r.target.description)}${r.plan ? `, plan ${mdText(r.plan)}` : ''}; ${r.requests} requests in ${r.durationS} s (started ${r.startedAt}).`,
    '',
    '## Verdicts',
    '',
    '| verdict | status | detail |',
    '| --- | --- | --- |',
    ...r.verdicts.map((v) => `| ${cell(v.id)} | ${STATUS_WORD[v.status]} | ${cell(v.message)} |`),
    '',
    '## Findings',
    '',
    ...r.findings.map((f) => `- ${mdText(f)}`),
    '',
    '## Steps',
    '',
    'Each step starts from an emptied bucket; over the limit, the served rate is the refill rate.',
    '',
    '| # | phase | offered req/s | s | served (2xx) | served/s | 429 | 429 share | other | not sent | class |',
    '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    ...r.steps.map((s) => `| ${s.index} | ${s.phase} | ${fmt(s.offered)} | ${s.durationS.toFixed(1)} | ${s.accepted2xx} | ${fmt(s.acceptedRate)} | ${s.throttled429} | ${(s.throttledShare * 100).toFixed(0)} % | ${s.other} | ${s.notSent} | ${s.class} |`),
    '',
  ];
  return lines.join('\n');
}

function curve(r: ProbeResult): string {
  const steps = [...r.steps].sort((a, b) => a.offered - b.offered);
  // One point is no curve: a chart of it reads as a broken one.
  if (steps.length < 2) {
    const s = steps[0];
    return `<p class="muted">${s ? `One step only (offered ${htmlEscape(fmt(s.offered))} requests/s: served ${htmlEscape(fmt(s.acceptedRate))}/s, ${s.throttled429} × 429 in ${s.durationS.toFixed(1)} s)` : 'No step ran'}: no curve to draw.</p>`;
  }
  const served = lineChart({
    title: 'Offered vs served rate',
    xLabel: 'offered (requests/s)',
    yLabel: 'requests/s',
    markers: true,
    series: [
      { name: 'served (2xx/s)', points: steps.map((s) => [s.offered, s.acceptedRate]) },
      { name: '429/s', points: steps.map((s) => [s.offered, s.throttled429 / s.durationS]) },
      { name: 'offered', points: steps.map((s) => [s.offered, s.offered]) },
    ],
  });
  const share = lineChart({
    title: '429 share by offered rate',
    xLabel: 'offered (requests/s)',
    yLabel: '% of requests answered 429',
    markers: true,
    series: [{ name: '429 share (%)', points: steps.map((s) => [s.offered, s.throttledShare * 100]) }],
  });
  return served + share;
}

/** The probe's page below its title, with headings from level `top` down (1 in probe.html, 2 as a section). */
function probeBody(r: ProbeResult, top: 1 | 2): string {
  const h = htmlEscape;
  const [title, sub] = [`h${top}`, `h${top + 1}`];
  const row = (cells: string[]) => `<tr>${cells.map((c) => `<td>${c}</td>`).join('')}</tr>`;
  return `<${title}>Rate-limit probe: <span class="${r.exitCode ? 'fail' : verdictWord(r) === 'PASS' ? 'pass' : ''}">${verdictWord(r)}</span></${title}>
<p>Target: ${h(r.target.description)}${r.plan ? `, plan ${h(r.plan)}` : ''}; ${r.requests} requests in ${r.durationS} s (started ${h(r.startedAt)}). Keys: ${h(r.keys)}.</p>
<${sub}>Verdicts</${sub}>
<table><tr><th>verdict</th><th>status</th><th>detail</th></tr>
${r.verdicts.map((v) => `<tr><td>${h(v.id)}</td><td class="${v.status === 'fail' ? 'fail' : v.status === 'pass' ? 'pass' : ''}">${h(STATUS_WORD[v.status])}</td><td>${h(v.message)}</td></tr>`).join('\n')}
</table>
<${sub}>Findings</${sub}>
<ul>${r.findings.map((f) => `<li>${h(f)}</li>`).join('')}</ul>
<${sub}>The curve</${sub}>
<p>Every step starts from an emptied bucket: below the limit every request is served; above it only the refill is, so the served rate flattens at the sustained limit.</p>
${curve(r)}
<${sub}>Steps</${sub}>
<table><tr><th>#</th><th>phase</th><th>offered req/s</th><th>s</th><th>served</th><th>served/s</th><th>429</th><th>429 share</th><th>other</th><th>not sent</th><th>class</th></tr>
${r.steps.map((s) => row([String(s.index), h(s.phase), fmt(s.offered), s.durationS.toFixed(1), String(s.accepted2xx), fmt(s.acceptedRate), String(s.throttled429), `${(s.throttledShare * 100).toFixed(0)} %`, String(s.other), String(s.notSent), h(s.class)])).join('\n')}
</table>
`;
}

export function renderProbeHtml(r: ProbeResult): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>Rate-limit probe: ${verdictWord(r)}</title>
<style>${pageStyle('.probe-report')}</style>
</head><body>
<section class="probe-report">${probeBody(r, 1)}</section></body></html>
`;
}

/** The shared look (src/kit/page-style.ts), scoped to the section so that it leaves the page around it alone. */
const SECTION_STYLE = sectionStyle('.probe-report');

/** The probe run as an HTML fragment, for another page (report.html): probe.html's body under an h2. */
export function renderProbeSection(r: ProbeResult): string {
  return `<section class="probe-report">\n<style>${SECTION_STYLE}</style>\n${probeBody(r, 2)}</section>\n`;
}

export function renderProbeJunit(r: ProbeResult): string {
  const cases = r.verdicts.map((v) => {
    const open = `  <testcase classname="probe-rate-limit" name="${xmlEscape(`${v.id}: ${v.name}`)}" time="0">`;
    if (v.status === 'fail') return `${open}\n    <failure message="${xmlEscape(v.message)}">${xmlEscape(v.message)}</failure>\n  </testcase>`;
    if (v.status === 'not-testable' || v.status === 'not-requested') return `${open}\n    <skipped message="${xmlEscape(v.message)}"/>\n  </testcase>`;
    return `${open}\n    <system-out>${xmlEscape(v.message)}</system-out>\n  </testcase>`;
  });
  const failures = r.verdicts.filter((v) => v.status === 'fail').length;
  const skipped = r.verdicts.filter((v) => v.status === 'not-testable' || v.status === 'not-requested').length;
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="probe-rate-limit" tests="${r.verdicts.length}" failures="${failures}" skipped="${skipped}" time="${r.durationS}">
<testsuite name="rate-limit probe: ${xmlEscape(r.target.description)}" tests="${r.verdicts.length}" failures="${failures}" skipped="${skipped}" errors="0" time="${r.durationS}">
${cases.join('\n')}
</testsuite>
</testsuites>
`;
}

/**
 * The door of the probe reports: scrubs `result` of `secrets` (every key the probe held, its URL's
 * credentials), writes the four reports from the scrubbed copy to `dir`, and returns their paths and that
 * copy (print from it).
 */
export function writeProbeReports(result: ProbeResult, dir: string, secrets: Secrets): { files: string[]; result: ProbeResult } {
  const r = scrubDeep(result, secrets);
  makeDir(dir);
  const texts: Record<(typeof PROBE_REPORT_FILES)[number], string> = {
    'probe.json': `${JSON.stringify(r, null, 2)}\n`,
    'probe.md': renderProbeMarkdown(r),
    'probe.html': renderProbeHtml(r),
    'probe-junit.xml': renderProbeJunit(r),
  };
  const files = PROBE_REPORT_FILES.map((name) => {
    const path = join(dir, name);
    writeFileSync(path, scrubText(texts[name], secrets));
    return path;
  });
  return { files, result: r };
}
