/**
 * capacity-replicas.json and .md: the sustained rates of one replica and of two behind the balancer, under the
 * same CPU quota each, and their ratio. Pure (the command runs the searches and writes the files), so that what
 * counts as an answer is stated once: the ratio is only worth reading when both searches bracketed an SLO break
 * (bound "slo"); a generator, cap, rate-limit or time bound is a lower bound or no number, and a ratio of lower
 * bounds says nothing about scaling.
 */
import type { Bound, CapacityReport, StepRecord } from '../../load/capacity/capacity-result.js';

export interface SetupResult {
  replicas: number;
  /** The CPU quota of all the replicas together, in cores. */
  quotaCores: number;
  sustained: number | null;
  broke: number | null;
  bound: Bound | 'none';
  summary: string;
  /** Whether this number can enter the ratio: a bracketed SLO break. */
  sound: boolean;
  /** The replicas' CPU (cores, summed) over the highest step that held, and over the lowest that broke: near quotaCores when the replicas were the bottleneck. */
  replicaCpuAtSustained?: number;
  replicaCpuAtBroke?: number;
  /** Time to start the containers and be healthy, and the search's own time (calibration included), s. */
  startupS: number;
  searchS: number;
}

export interface ReplicasReport {
  schemaVersion: 1;
  tool: { name: 'capacity-replicas'; version: string };
  startedAt: string;
  durationS: number;
  scenario: string;
  slo: string;
  /** The quota of each replica (podman --cpus, Docker's deploy.resources.limits.cpus). */
  cpusPerReplica: number;
  image: string;
  one: SetupResult;
  two: SetupResult;
  /** two.sustained / one.sustained, when both are sound; null otherwise. */
  ratio: number | null;
  /** ratio / 2: 1 is perfect scaling. */
  efficiency: number | null;
  /**
   * What the two brackets allow: two.sustained / one.broke to two.broke / one.sustained. Each search knows its
   * rate only to its tolerance; a ratio read closer than this range says more than was measured.
   */
  ratioRange: [number, number] | null;
  /** 0 both searches bracketed a break; 2 one did not (why in noAnswer). */
  exitCode: 0 | 2;
  noAnswer?: string;
  findings: string[];
  /** Each search's own capacity.json, steps and all. */
  runs: { one: CapacityReport | null; two: CapacityReport | null };
}

const r2 = (v: number) => Math.round(v * 100) / 100;

/** The result of one setup, from its capacity report (null: the setup never got to a search, `failure` says why). */
export function setupResult(replicas: number, cpus: number, report: CapacityReport | null, startupS: number, failure?: string): SetupResult {
  const s = report?.scenarios[0];
  const base = { replicas, quotaCores: r2(cpus * replicas), startupS, searchS: report?.durationS ?? 0 };
  if (!s) return { ...base, sustained: null, broke: null, bound: 'none', summary: failure ?? 'no search ran', sound: false };
  const held = lastStep(s.steps, (st) => st.verdict === 'pass' && st.offered === s.sustained);
  const broke = lastStep(s.steps, (st) => st.verdict !== 'pass' && st.verdict !== 'invalid' && st.offered === s.broke);
  return {
    ...base,
    sustained: s.sustained,
    broke: s.broke,
    bound: s.bound,
    summary: s.summary,
    sound: s.bound === 'slo' && s.sustained !== null && s.sustained > 0,
    ...(held?.serverCpuCores !== undefined && { replicaCpuAtSustained: held.serverCpuCores }),
    ...(broke?.serverCpuCores !== undefined && { replicaCpuAtBroke: broke.serverCpuCores }),
  };
}

function lastStep(steps: StepRecord[], match: (s: StepRecord) => boolean): StepRecord | undefined {
  return steps.filter(match).at(-1);
}

/** Why a setup's number cannot enter the ratio, and what to change. */
function whyUnsound(label: string, r: SetupResult, cpus: number): string {
  const what = `${label}: ${r.summary}`;
  switch (r.bound) {
    case 'generator':
      return /sent late/.test(r.summary)
        ? `${what}. The generator's sends were late: give each replica less CPU (--cpus below ${cpus}), or, on a machine shared with other work, allow the scheduler's delays (--max-send-lag)`
        : `${what}. The generator on this machine, not the replicas, was the limit: give each replica less CPU (--cpus below ${cpus})`;
    case 'cap':
      return `${what}. Raise --max-rate, or give each replica less CPU (--cpus below ${cpus})`;
    case 'time':
      return `${what}. Give the search more time (--max-time) or fewer steps (a --start-rate nearer the answer, a wider --tolerance)`;
    case 'rate-limit':
      return `${what}. 429s are a plan's limit, not a capacity: the replicas' bootstrap plan should have none`;
    default:
      return what;
  }
}

export function replicasReport(o: {
  startedAt: Date; durationS: number; version: string; scenario: string; slo: string; cpus: number; image: string;
  one: SetupResult; two: SetupResult; runs: ReplicasReport['runs'];
}): ReplicasReport {
  const sound = o.one.sound && o.two.sound;
  const ratio = sound ? r2(o.two.sustained! / o.one.sustained!) : null;
  const findings: string[] = [];
  // A CPU quota amplifies every burst (a collection, a compilation) by 1/quota, so a latency SLO breaks below
  // full use of the quota: what tells is the two setups compared. Two replicas that broke while far less busy
  // than the one replica did were held back by something else (the balancer, the machine's cores).
  const use = (r: SetupResult) => (r.replicaCpuAtBroke === undefined ? undefined : r.replicaCpuAtBroke / r.quotaCores);
  const [useOne, useTwo] = [use(o.one), use(o.two)];
  if (o.one.sound && o.two.sound && useOne !== undefined && useTwo !== undefined && useTwo < 0.75 * useOne) {
    findings.push(`two replicas broke at ${Math.round(useTwo * 100)} % of their quota, one replica at ${Math.round(useOne * 100)} % of its own: something besides the replicas (the balancer, the machine's cores) may have limited the two, and the ratio understates their scaling`);
  }
  const unsound = [['one replica', o.one], ['two replicas', o.two]].filter(([, r]) => !(r as SetupResult).sound) as Array<[string, SetupResult]>;
  return {
    schemaVersion: 1,
    tool: { name: 'capacity-replicas', version: o.version },
    startedAt: o.startedAt.toISOString(),
    durationS: o.durationS,
    scenario: o.scenario,
    slo: o.slo,
    cpusPerReplica: o.cpus,
    image: o.image,
    one: o.one,
    two: o.two,
    ratio,
    efficiency: ratio === null ? null : r2(ratio / 2),
    ratioRange: sound && o.one.broke !== null && o.two.broke !== null ? [r2(o.two.sustained! / o.one.broke), r2(o.two.broke / o.one.sustained!)] : null,
    exitCode: sound ? 0 : 2,
    ...(!sound && { noAnswer: unsound.map(([label, r]) => whyUnsound(label, r, o.cpus)).join('; ') }),
    findings,
    runs: o.runs,
  };
}

/** The lines printed at the end and the heart of the Markdown file. */
export function headline(r: ReplicasReport): string[] {
  const rate = (v: number | null) => (v === null ? 'no number' : `${v} req/s`);
  const line = (label: string, s: SetupResult) =>
    `${label}: ${s.sound ? '' : 'NO SOUND ANSWER: '}sustained ${rate(s.sustained)}${s.broke !== null ? `, broke at ${rate(s.broke)}` : ''} (bound: ${s.bound}${s.replicaCpuAtBroke !== undefined ? `; replicas' CPU where it broke ${s.replicaCpuAtBroke} of ${s.quotaCores} cores` : ''})`;
  return [
    line(`one replica  (--cpus ${r.cpusPerReplica})`, r.one),
    line(`two replicas (--cpus ${r.cpusPerReplica} each)`, r.two),
    r.ratio === null
      ? `ratio two/one: none (${r.noAnswer})`
      : `ratio two/one: ${r.ratio}${r.ratioRange ? ` (${r.ratioRange[0]} to ${r.ratioRange[1]} within the brackets)` : ''}, scaling efficiency ${Math.round(r.efficiency! * 100)} %`,
  ];
}

export function renderMarkdown(r: ReplicasReport): string {
  const cell = (v: number | string | null | undefined) => (v === null || v === undefined ? '-' : String(v));
  const rows = ([['one', r.one], ['two', r.two]] as const).map(([, s]) =>
    `| ${s.replicas} | ${s.quotaCores} | ${cell(s.sustained)} | ${cell(s.broke)} | ${s.bound} | ${cell(s.replicaCpuAtSustained)} | ${cell(s.replicaCpuAtBroke)} | ${s.startupS} + ${s.searchS} |`);
  return [
    `# Scaling: one replica and two, ${r.scenario}, SLO ${r.slo}`,
    '',
    `Each replica under a CPU quota of ${r.cpusPerReplica} cores; both setups behind the project's round-robin balancer`,
    `(one upstream, then two sharing one SQLite file), image ${r.image}. Started ${r.startedAt}, ${r.durationS} s in all.`,
    '',
    ...headline(r).map((l) => `- ${l}`),
    '',
    '| replicas | quota (cores) | sustained (req/s) | broke (req/s) | bound | replicas\' CPU held (cores) | replicas\' CPU broke (cores) | start + search (s) |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    'The sustained rate is the highest offered rate (open model, latency from the planned send) whose step held the SLO;',
    '"broke" the lowest that did not. The ratio is read only when both searches met the SLO bound: a generator or cap',
    'bound is a lower bound. Scaling efficiency = ratio / 2. The replicas\' CPU against their quota says how busy they were: a',
    'quota stretches every burst of work (a collection, a compilation) by 1 / quota, so a latency SLO breaks before it is used up.',
    '',
    ...(r.findings.length > 0 ? ['## Findings', '', ...r.findings.map((f) => `- ${f}`), ''] : []),
    '## The searches',
    '',
    `- one replica: ${r.one.summary}`,
    `- two replicas: ${r.two.summary}`,
    '',
  ].join('\n');
}
