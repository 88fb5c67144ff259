// tests/export/check_real.mjs DIR NODE_DIR
// The exports of a real run of hp_export_work (tests/export/work.c, with
// probes: hybrid mode) read back by real readers, checked against what the
// workload does by construction: heavy's path takes 75% of heavy+light
// (within 5 points), the probes count heavy 20, light 20, unit 80; two
// threads.  Files in DIR: h.pb.gz, m.pb.gz (measured mode), h.ss.json.
// Prints one line per failure and "N passed, N failed".
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { createRequire } from 'node:module';

const [dir, nodeDir] = process.argv.slice(2);
const require = createRequire(path.join(nodeDir, 'package.json'));
const { Profile } = require('pprof-format');
const Ajv = require('ajv');

let failures = 0, checks = 0;
function check(ok, what) { checks++; if (!ok) { failures++; console.log('FAIL: ' + what); } }

function readPprof(file) {
  const p = Profile.decode(zlib.gunzipSync(fs.readFileSync(path.join(dir, file))));
  const S = (i) => p.stringTable.strings[Number(i)];
  const funcs = new Map(p.function.map((f) => [Number(f.id), S(f.name)]));
  const locs = new Map(p.location.map((l) => [Number(l.id), l]));
  const types = p.sampleType.map((v) => S(v.type));
  const samples = p.sample.map((s) => ({
    stack: [...s.locationId].reverse().flatMap((id) => [...locs.get(Number(id)).line].reverse().map((ln) => funcs.get(Number(ln.functionId)))),
    v: Object.fromEntries(types.map((t, k) => [t, Number(s.value[k])])),
  }));
  return { p, S, types, samples };
}

// hybrid: shares of sampled (CPU) time and exact calls
{
  const { types, samples, p, S } = readPprof('h.pb.gz');
  check(JSON.stringify(types) === JSON.stringify(['samples', 'time', 'calls']), `hybrid sample types ${types}`);
  const sum = (pred, t) => samples.filter(pred).reduce((a, s) => a + s.v[t], 0);
  const heavy = sum((s) => s.stack.includes('heavy'), 'time'), light = sum((s) => s.stack.includes('light'), 'time');
  const share = heavy / (heavy + light);
  check(Math.abs(share - 0.75) <= 0.05, `heavy is ${(100 * share).toFixed(1)}% of heavy+light time, want 75 +- 5`);
  const calls = (f) => sum((s) => s.stack[s.stack.length - 1] === f, 'calls');
  check(calls('heavy') === 20 && calls('light') === 20 && calls('unit') === 80,
    `flat calls heavy ${calls('heavy')} light ${calls('light')} unit ${calls('unit')}, want 20 20 80`);
  check(sum(() => true, 'samples') > 200, `samples ${sum(() => true, 'samples')} > 200`);
  check(p.mapping.length >= 1 && /hp_export_work_instr$/.test(S(p.mapping[0].filename)),
    `mapping[0] is the program: ${p.mapping.length ? S(p.mapping[0].filename) : 'none'}`);
  const unitLoc = p.location.find((l) => l.line.some((ln) => p.function.find((f) => f.id === ln.functionId && S(f.name) === 'unit')));
  const m = unitLoc && p.mapping.find((x) => x.id === unitLoc.mappingId);
  check(m && Number(unitLoc.address) >= Number(m.memoryStart) && Number(unitLoc.address) < Number(m.memoryLimit),
    'the location of unit lies inside its mapping');
  const unitFn = p.function.find((f) => S(f.name) === 'unit');
  check(unitFn && /work\.c$/.test(S(unitFn.filename)) && Number(unitFn.startLine) > 0,
    `unit's function has its file and line: ${unitFn && S(unitFn.filename)}:${unitFn && unitFn.startLine}`);
}
// measured
{
  const { types, samples } = readPprof('m.pb.gz');
  check(JSON.stringify(types) === JSON.stringify(['samples', 'time', 'calls', 'raw_time', 'sampled_time']),
    `measured sample types ${types}`);
  const sum = (f, t) => samples.filter((s) => s.stack.includes(f)).reduce((a, s) => a + s.v[t], 0);
  // measured times are wall-clock intervals: on a shared machine the split
  // moves, so only exact facts are checked here
  const leafCalls = (f) => samples.filter((s) => s.stack[s.stack.length - 1] === f).reduce((a, s) => a + s.v.calls, 0);
  check(leafCalls('heavy') === 20 && leafCalls('unit') === 80, `measured: calls heavy ${leafCalls('heavy')} unit ${leafCalls('unit')}, want 20 80`);
  check(sum('heavy', 'time') > 0 && sum('light', 'time') > 0, 'measured: heavy and light have time');
  check(sum('heavy', 'raw_time') >= sum('heavy', 'time'), 'measured: raw time >= compensated time');
}
// speedscope: schema, one profile per thread
{
  const doc = JSON.parse(fs.readFileSync(path.join(dir, 'h.ss.json'), 'utf8'));
  const schema = JSON.parse(fs.readFileSync(path.join(nodeDir, 'node_modules/speedscope/dist/release/file-format-schema.json'), 'utf8'));
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validate = ajv.compile(schema);
  check(validate(doc), `speedscope: valid against speedscope's schema: ${ajv.errorsText(validate.errors)}`);
  check(doc.profiles.length === 2, `speedscope: one profile per thread (${doc.profiles.length})`);
  const has = (p, name) => p.samples.some((st) => st.some((f) => doc.shared.frames[f].name === name));
  const heavyIn = doc.profiles.filter((p) => has(p, 'heavy')).length, lightIn = doc.profiles.filter((p) => has(p, 'light')).length;
  check(heavyIn === 1 && lightIn === 1 && !doc.profiles.some((p) => has(p, 'heavy') && has(p, 'light')),
    'speedscope: heavy and light are in different thread profiles');
}
console.log(`${checks - failures} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
