// Summarizes a V8 .cpuprofile (from `--cpu-prof`): the functions with the most self and total time. Usage: node dist/bench/profile-top.js FILE [N]
import fs from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const frameName = (n: ProfileNode) => {
  const f = n.callFrame;
  const where = f.url ? `${path.relative(process.cwd(), f.url.replace(/^file:\/\//, ''))}:${f.lineNumber + 1}` : '';
  return `${f.functionName || '(anonymous)'} ${where}`.trim();
};

export function topFunctions(file: string, n = 25): string[] {
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((x) => [x.id, x]));
  const parent = new Map<number, number>();
  for (const x of p.nodes) for (const c of x.children ?? []) parent.set(c, x.id);
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let all = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const dt = p.timeDeltas[i] ?? 0;
    all += dt;
    let id: number | undefined = p.samples[i];
    const leaf = byId.get(id)!;
    self.set(frameName(leaf), (self.get(frameName(leaf)) ?? 0) + dt);
    const seen = new Set<string>();
    while (id !== undefined) {
      const name = frameName(byId.get(id)!);
      if (!seen.has(name)) {
        seen.add(name);
        total.set(name, (total.get(name) ?? 0) + dt);
      }
      id = parent.get(id);
    }
  }
  const pct = (v: number) => ((100 * v) / all).toFixed(1).padStart(5) + ' %';
  const top = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
  return [
    `profile ${path.basename(file)}: ${(all / 1e6).toFixed(1)} s sampled`,
    'self time:',
    ...top(self).map(([k, v]) => `  ${pct(v)}  ${k}`),
    'total time (including callees):',
    ...top(total).map(([k, v]) => `  ${pct(v)}  ${k}`),
  ];
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  for (const line of topFunctions(process.argv[2], Number(process.argv[3] ?? 25))) process.stdout.write(line + '\n');
}
