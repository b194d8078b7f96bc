/**
 * load.md: GitHub-flavoured Markdown for a pull-request comment or $GITHUB_STEP_SUMMARY. The verdict, one
 * table row per scenario (with the change against the baseline), the streaming timings, errors by kind,
 * then every threshold with ✅ or ❌.
 */
import { mdCode, mdRow as row, mdText } from '../../src/kit/markdown.js';
import { fmt, pct } from '../../src/kit/numbers.js';
import { errorKindsText, loadWord, type LoadReport } from './load-results.js';

export const LOAD_MD = 'load.md';

export function renderLoadMd(load: LoadReport): string {
  const out: string[] = [];
  const failed = load.thresholds.filter((t) => !t.ok);
  out.push(`## Load: ${loadWord(load)}`, '');
  out.push(mdText(load.verdict), '');
  const rate = load.settings.rate === null ? 'closed loop' : `fixed arrival rate ${load.settings.rate} req/s`;
  out.push(`Target ${mdText(load.target.description)}; autocannon, ${load.settings.connections} connections, ${load.settings.durationS} s per scenario, ${rate}; `
    + `${load.machine.cpus} × ${mdText(load.machine.model)}, Node ${mdText(load.machine.node)}; started ${load.startedAt}.`, '');

  const withBaseline = load.baseline !== undefined;
  out.push(row(['scenario', 'req/s', 'requests', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'errors', ...(withBaseline ? ['vs baseline'] : [])]));
  out.push(row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', ...(withBaseline ? ['---'] : [])]));
  for (const s of load.scenarios) {
    const l = s.latencyMs;
    let vs: string[] = [];
    if (load.baseline) {
      const c = load.baseline.scenarios.find((b) => b.name === s.name);
      const r = c?.paired?.regression;
      vs = [!c ? 'not in the baseline'
        : `req/s ${pct(c.requestsPerSecond.changePct)} (${fmt(c.requestsPerSecond.baseline)}), p99 ${pct(c.p99.changePct)} (${fmt(c.p99.baseline)} ms)`
          + (r ? `; regression ${pct(r.estimatePct)}, 95 % interval ${pct(r.lowPct)} … ${pct(r.highPct)}` : '')];
    }
    out.push(row([mdText(s.name), fmt(s.requestsPerSecond), String(s.requests), fmt(l.p50), fmt(l.p90), fmt(l.p99), fmt(l.max), s.errors === 0 ? '0' : `**${s.errors}**`, ...vs]));
  }
  out.push('');

  const streaming = load.scenarios.filter((s) => s.streaming);
  if (streaming.length > 0) {
    out.push('### Streaming', '');
    out.push(row(['scenario', 'responses', 'progress events (min / mean)', 'first event p50 / p90 / p99 / max ms', 'result p50 / p90 / p99 / max ms']));
    out.push(row(['---', '---:', '---:', '---:', '---:']));
    for (const s of streaming) {
      const st = s.streaming!;
      const four = (p: { p50: number; p90: number; p99: number; max: number; samples: number }) => (p.samples === 0 ? 'n/a' : [p.p50, p.p90, p.p99, p.max].map((v) => fmt(v)).join(' / '));
      out.push(row([mdText(s.name), String(st.responses), `${st.progressEvents.min} / ${fmt(st.progressEvents.mean)}`, four(st.timeToFirstEventMs), four(st.timeToResultMs)]));
    }
    out.push('', `Time to first event and to result: ${mdText(load.settings.streamingTiming)}.`, '');
  }

  const paired = (load.baseline?.scenarios ?? []).filter((c) => c.paired);
  if (paired.length > 0) {
    const i = paired[0]!.paired!;
    out.push(`### Against the baseline, in pairs of rounds (${mdText(load.baseline!.baseUrl ?? '')})`, '');
    const how = load.settings.pairing === 'alternate' ? "the baseline's and the target's one after the other (AB, BA, AB...)" : 'the baseline and the target loaded together';
    out.push(`${i.pairs.length} pairs of rounds per scenario, ${how}. Method: ${mdText(i.method)}.`, '');
    out.push(row(['scenario', 'regression (95 % interval)', 'req/s change', 'p99 change', 'noise per pair (req/s, p99)', 'pairs: req/s baseline → target']));
    out.push(row(['---', '---', '---', '---', '---', '---']));
    const change = (x: { changePct: number; lowPct: number; highPct: number } | null) => (x ? `${pct(x.changePct)} [${pct(x.lowPct)}, ${pct(x.highPct)}]` : 'n/a');
    for (const c of paired) {
      const it = c.paired!;
      const r = it.regression;
      out.push(row([
        mdText(c.name),
        r ? `${pct(r.estimatePct)} (${pct(r.lowPct)} … ${pct(r.highPct)})` : 'n/a',
        change(it.requestsPerSecond),
        change(it.p99),
        `${it.requestsPerSecond ? `${fmt(it.requestsPerSecond.noisePct)} %` : 'n/a'}, ${it.p99 ? `${fmt(it.p99.noisePct)} %` : 'n/a'}`,
        it.pairs.map((p) => `${fmt(p.baseline.requestsPerSecond)} → ${fmt(p.current.requestsPerSecond)}`).join(', '),
      ]));
    }
    out.push('');
  }

  const erring = load.scenarios.filter((s) => s.errors > 0);
  if (erring.length > 0) {
    out.push('### Errors by kind', '');
    for (const s of erring) out.push(`- ${mdText(s.name)}: ${mdText(errorKindsText(s))}`);
    out.push('');
  }

  out.push(`### Thresholds (${load.thresholds.length - failed.length} of ${load.thresholds.length} hold)`, '');
  for (const t of load.thresholds) {
    const actual = t.actual === null ? 'not measured' : fmt(t.actual, 4);
    out.push(`- ${t.ok ? '✅' : '❌'} ${mdText(t.scenario)}: ${mdCode(t.expression)}: actual ${actual}${t.note ? ` (${mdText(t.note)})` : ''}${t.origin === 'option' ? '' : ` _${t.origin}_`}`);
  }
  if (load.baseline && load.baseline.missing.length > 0) out.push('', `Not in the baseline (${mdText(load.baseline.file ?? load.baseline.baseUrl ?? '')}): ${load.baseline.missing.map(mdText).join(', ')}.`);
  out.push('');
  return out.join('\n');
}
