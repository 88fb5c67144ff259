// tests/export/check_exports.mjs OUTDIR NODE_DIR
// Read hyprof's exports of the synthetic model (tests/export/synth.c) with
// real readers and compare what they read with expect.json:
//   pprof       npm pprof-format's decoder (zlib gunzip first)
//   speedscope  ajv against the schema speedscope publishes (in its npm
//               package: dist/release/file-format-schema.json)
//   folded      the format's grammar (frames ';' value), line by line
// Every failure prints the case; the exit status is the number of failures
// (capped at 100), 0 when all passed.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { createRequire } from 'node:module';

const [outdir, nodeDir] = process.argv.slice(2);
const require = createRequire(path.join(nodeDir, 'package.json'));
const { Profile } = require('pprof-format');
const Ajv = require('ajv');

const E = JSON.parse(fs.readFileSync(path.join(outdir, 'expect.json'), 'utf8'));
let failures = 0, checks = 0;
function check(ok, what) {
  checks++;
  if (!ok) { failures++; console.log('FAIL: ' + what); }
}
function near(a, b, rel = 1e-9, abs = 0) { return Math.abs(a - b) <= Math.max(abs, rel * Math.max(Math.abs(a), Math.abs(b))); }

// ---- expected values from the base tree ----------------------------------
const nodes = E.nodes.map((n, i) => ({ ...n, i, key: n.path.join('\u0001'), kids: [] }));
const byKey = new Map(nodes.map((n) => [n.key, n]));
for (const n of nodes) if (n.path.length > 1) byKey.get(n.path.slice(0, -1).join('\u0001')).kids.push(n);
function subtreeSamples(n) { return n.samples + n.kids.reduce((s, k) => s + subtreeSamples(k), 0); }
for (const n of nodes) n.isamples = subtreeSamples(n);
const NS = E.period_s * 1e9;                           // ns per sample
const factorOf = (sel) => E.threads.filter(sel).reduce((s, t) => s + t.factor, 0);
const expSelf = (n, F) => ({
  samples: n.samples * F,
  time: Math.round(n.samples * F * NS),
  calls: E.probes ? n.calls * F : 0,
  raw_time: Math.round(n.samples * F * NS * (E.measured ? E.raw_factor : 1)),
  sampled_time: Math.round(n.samples * F * NS),
});

// ---- pprof -----------------------------------------------------------------
function checkPprof(file, F, label) {
  const buf = zlib.gunzipSync(fs.readFileSync(path.join(outdir, file)));
  const p = Profile.decode(buf);
  const S = (i) => p.stringTable.strings[Number(i)];
  check(S(0) === '', `${label}: string_table[0] is "" (got ${JSON.stringify(S(0))})`);
  const want = ['samples/count', 'time/nanoseconds'];
  if (E.probes) want.push('calls/count');
  if (E.measured) want.push('raw_time/nanoseconds', 'sampled_time/nanoseconds');
  const types = p.sampleType.map((v) => S(v.type) + '/' + S(v.unit));
  check(JSON.stringify(types) === JSON.stringify(want), `${label}: sample types ${types} want ${want}`);
  check(S(p.defaultSampleType) === 'time', `${label}: default sample type is time`);
  check(S(p.periodType.type) === 'task-clock' && S(p.periodType.unit) === 'nanoseconds',
    `${label}: period type ${S(p.periodType.type)}/${S(p.periodType.unit)}`);
  check(Number(p.period) === 1000000, `${label}: period ${p.period}`);
  check(Number(p.durationNanos) > 0, `${label}: duration_nanos ${p.durationNanos}`);

  const funcs = new Map(p.function.map((f) => [Number(f.id), f]));
  const locs = new Map(p.location.map((l) => [Number(l.id), l]));
  const maps = new Map(p.mapping.map((m) => [Number(m.id), m]));
  check(funcs.size === p.function.length && locs.size === p.location.length && maps.size === p.mapping.length,
    `${label}: ids are unique`);
  check(!funcs.has(0) && !locs.has(0) && !maps.has(0), `${label}: ids are nonzero`);
  check(p.mapping.length === 2 && S(p.mapping[0].filename) === E.modules.synth,
    `${label}: mapping[0] is the main program (${p.mapping.map((m) => S(m.filename))})`);
  for (const f of p.function) {
    const ef = E.funcs[S(f.name)];
    check(ef !== undefined, `${label}: function ${S(f.name)} is known`);
    if (!ef) continue;
    check(S(f.filename) === ef.file && Number(f.startLine) === ef.line,
      `${label}: function ${S(f.name)} file ${S(f.filename)}:${f.startLine} want ${ef.file}:${ef.line}`);
  }
  for (const l of p.location) {
    const m = maps.get(Number(l.mappingId));
    const outer = funcs.get(Number(l.line[l.line.length - 1].functionId));
    const ef = E.funcs[S(outer.name)];
    check(m && S(m.filename) === E.modules[ef.module], `${label}: location ${l.id} in mapping of ${ef.module}`);
    check(m && Number(l.address) >= Number(m.memoryStart) && Number(l.address) < Number(m.memoryLimit),
      `${label}: location ${l.id} address ${Number(l.address).toString(16)} inside its mapping`);
  }
  // Samples: stacks leaf first; lines innermost first within a location.
  const seen = new Set();
  for (const s of p.sample) {
    const frames = [];   // root first: {name, line}
    for (const id of [...s.locationId].reverse()) {
      const l = locs.get(Number(id));
      for (const ln of [...l.line].reverse()) frames.push({ name: S(funcs.get(Number(ln.functionId)).name), line: Number(ln.line), loc: l });
    }
    const key = frames.map((f) => f.name).join('\u0001');
    const n = byKey.get(key);
    check(n !== undefined, `${label}: sample stack ${frames.map((f) => f.name).join(';')} is a node of the model`);
    if (!n) continue;
    check(!seen.has(key), `${label}: one sample per call path (${key})`);
    seen.add(key);
    const ex = expSelf(n, F);
    want.forEach((t, k) => {
      const name = t.split('/')[0];
      check(Number(s.value[k]) === ex[name], `${label}: ${n.path.join(';')} ${name} ${s.value[k]} want ${ex[name]}`);
    });
    // lines: each frame but the leaf executes the call-site line of the next frame
    frames.forEach((f, d) => {
      const wantLine = d + 1 < frames.length ? nodes[byKey.get(n.path.slice(0, d + 2).join('\u0001')).i].line : 0;
      check(f.line === wantLine, `${label}: ${n.path.join(';')} frame ${d} (${f.name}) line ${f.line} want ${wantLine}`);
    });
    // an inlined node shares its location with its caller (line[] of 2 entries)
    if (n.inlined) {
      const leafLoc = locs.get(Number(s.locationId[0]));
      const names = leafLoc.line.map((ln) => S(funcs.get(Number(ln.functionId)).name));
      check(names.length === 2 && names[0] === n.path[n.path.length - 1] && names[1] === n.path[n.path.length - 2],
        `${label}: inlined ${n.path.join(';')}: leaf location lines ${names} (innermost first)`);
    }
  }
  check(seen.size === nodes.length, `${label}: ${seen.size} sample stacks, want ${nodes.length}`);
  const comments = p.comment.map(S).join('\n');
  check(/cost\.low = 0\.012 s/.test(comments), `${label}: the cost range is in the comments`);
}

// ---- folded ----------------------------------------------------------------
function foldName(n) { return n.replace(/;/g, ':').replace(/[\r\n]/g, ' '); }
function checkFolded(file, F, value, label) {
  const text = fs.readFileSync(path.join(outdir, file), 'utf8');
  const lines = text.split('\n');
  check(lines.pop() === '', `${label}: ends with a newline`);
  const want = new Map();
  for (const n of nodes) {
    const ex = expSelf(n, F);
    const v = value === 'samples' ? ex.samples : value === 'time' ? ex.time : ex.calls;
    if (v > 0) want.set(n.path.map((x, d) => foldName(x) + (d === n.path.length - 1 && n.inlined ? '_[i]' : '')).join(';'), v);
  }
  // inlined frames keep their suffix wherever they appear in a path
  for (const n of nodes) if (n.inlined) { /* only leaves are inlined in the model */ }
  let matched = 0;
  lines.forEach((ln, k) => {
    const m = /^(.+) (\d+)$/.exec(ln);
    check(m !== null, `${label}: line ${k + 1} is "frames value": ${ln}`);
    if (!m) return;
    check(!m[1].split(';').some((f) => f === ''), `${label}: line ${k + 1} has no empty frame`);
    const v = want.get(m[1]);
    check(v !== undefined, `${label}: line ${k + 1} path ${m[1]} is a node`);
    if (v === undefined) return;
    check(Number(m[2]) === v, `${label}: ${m[1]} value ${m[2]} want ${v}`);
    matched++;
  });
  check(matched === want.size, `${label}: ${matched} paths, want ${want.size}`);
}

// ---- speedscope ----------------------------------------------------------------
function checkSpeedscope(file, groups, label) {
  const doc = JSON.parse(fs.readFileSync(path.join(outdir, file), 'utf8'));
  const schema = JSON.parse(fs.readFileSync(path.join(nodeDir, 'node_modules/speedscope/dist/release/file-format-schema.json'), 'utf8'));
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validate = ajv.compile(schema);
  const ok = validate(doc);
  check(ok, `${label}: valid against speedscope's schema: ${ajv.errorsText(validate.errors)}`);
  check(doc.profiles.length === groups.length, `${label}: ${doc.profiles.length} profiles, want ${groups.length}`);
  const frames = doc.shared.frames;
  groups.forEach((g, k) => {
    const p = doc.profiles[k];
    if (!p) return;
    check(p.name === g.name, `${label}: profile ${k} name ${p.name} want ${g.name}`);
    check(p.type === 'sampled' && p.unit === 'nanoseconds', `${label}: profile ${k} sampled in nanoseconds`);
    check(p.samples.length === p.weights.length, `${label}: profile ${k} one weight per sample`);
    let sum = 0, n = 0;
    p.samples.forEach((st, j) => {
      const names = st.map((f) => frames[f].name.replace(/ \[inlined\]$/, ''));
      const node = byKey.get(names.join('\u0001'));
      check(node !== undefined, `${label}: profile ${k} stack ${names.join(';')} is a node`);
      if (!node) return;
      check(p.weights[j] === expSelf(node, g.F).time, `${label}: ${g.name} ${names.join(';')} weight ${p.weights[j]} want ${expSelf(node, g.F).time}`);
      sum += p.weights[j];
      n++;
    });
    check(n === nodes.length, `${label}: profile ${k} has ${n} stacks, want ${nodes.length}`);
    check(near(p.endValue, sum), `${label}: profile ${k} endValue ${p.endValue} = sum of weights ${sum}`);
  });
  for (const f of frames) {
    const base = f.name.replace(/ \[inlined\]$/, '');
    const ef = E.funcs[base];
    check(ef !== undefined, `${label}: frame ${f.name} is a function`);
    if (ef && ef.file) check(f.file === ef.file && f.line === ef.line, `${label}: frame ${f.name} at ${f.file}:${f.line}`);
  }
}

const T = (r, t) => (x) => (r < 0 || x.rank === r) && (t < 0 || x.thread === t);
checkPprof('merged.pb.gz', E.merged_factor, 'pprof merged');
checkPprof('r1t0.pb.gz', factorOf(T(1, 0)), 'pprof --rank 1 --thread 0');
checkFolded('merged.folded', E.merged_factor, 'samples', 'folded merged');
checkFolded('merged_time.folded', E.merged_factor, 'time', 'folded --value time');
if (E.probes) checkFolded('merged_calls.folded', E.merged_factor, 'calls', 'folded --value calls');
checkFolded('r0.folded', factorOf(T(0, -1)), 'samples', 'folded --rank 0');
checkSpeedscope('speedscope.json', [0, 1].map((r) => ({ name: `rank ${r}`, F: factorOf(T(r, -1)) })), 'speedscope by rank');
checkSpeedscope('speedscope_thread.json', E.threads.map((t) => ({
  name: `rank ${t.rank} thread ${t.thread} (tid ${1000 + t.rank + 50 * t.thread})`, F: t.factor })), 'speedscope by thread');
console.log(`${checks - failures} passed, ${failures} failed`);
process.exit(Math.min(failures, 100));
