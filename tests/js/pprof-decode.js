#!/usr/bin/env node
// pprof-decode.js FILE - read a gzipped pprof profile (profile.proto) with
// the pprof-format package, a decoder written independently of profil
// (tests/js/package.json pins it), check the rules of profile.proto that
// pprof relies on, and print what the tests compare, one tab-separated
// record a line (numbers in decimal, addresses in hex):
//
//   sample_type  TYPE UNIT TOTAL        (sum of that value over all samples)
//   period       TYPE UNIT PERIOD
//   default      TYPE
//   time         TIME_NANOS DURATION_NANOS
//   counts       SAMPLES LOCATIONS FUNCTIONS MAPPINGS
//   mapping      ID START LIMIT OFFSET FILENAME BUILD_ID HAS_FUNCTIONS
//                HAS_FILENAMES HAS_LINE_NUMBERS
//   function     SAMPLES NAME SYSTEM_NAME FILENAME START_LINE LINES
//   inlined      SAMPLES LEAF CALLER CALLER_LINE
//   symbol       SAMPLES NAME
//   no_function  SAMPLES
//   comment      TEXT
//   stack        SAMPLES LOCATIONS FRAMES
//   values       VALUES FRAMES       (every value of the sample, by ',')
//   cum          SAMPLES NAME
//
// A function's SAMPLES add the first value of the samples whose leaf
// frame is in it (the flat profile); LINES lists the distinct line
// numbers of those frames ("-" for none).  inlined adds the samples
// whose leaf location has more than one line (inlined frames): LEAF is
// the innermost function, CALLER the last one (the function the others
// were inlined into) at CALLER_LINE.  symbol adds samples by that last
// function (the symbol the code belongs to, as a flat profile by symbol
// has it).  no_function counts samples
// whose location has no line at all (an address only).  Functions come
// most samples first.  stack is one sample as it is in the file: its
// first value, its number of locations and its frames, root first, joined
// by ';': each location's lines from the last (the function the others
// were inlined into) to the first, a location without lines named
// [BASENAME] of its mapping's file ([unknown] without a mapping), as
// folded stacks name them.  cum adds each sample to every function name
// anywhere in its stack, once per sample (pprof's -cum), most samples
// first.  Exits 1 with one line on stderr when the file is not a valid
// profile.
//
// Run by hand: npm ci --prefix tests/js &&
//   NODE_PATH=tests/js/node_modules node tests/js/pprof-decode.js profile.pb.gz
'use strict';

const fs = require('fs');
const zlib = require('zlib');
const { Profile } = require('pprof-format');

function fail(msg) {
	process.stderr.write(`pprof-decode: ${msg}\n`);
	process.exit(1);
}

if (process.argv.length !== 3)
	fail('usage: pprof-decode.js FILE');
const raw = fs.readFileSync(process.argv[2]);
if (raw.length < 2 || raw[0] !== 0x1f || raw[1] !== 0x8b)
	fail('not gzip-compressed (profile.proto wants gzip on disk)');
const profile = Profile.decode(new Uint8Array(zlib.gunzipSync(raw)));

const strings = profile.stringTable.strings;
const big = (v) => BigInt(v ?? 0);
function str(index, what) {
	const i = Number(index ?? 0);
	if (!Number.isInteger(i) || i < 0 || i >= strings.length)
		fail(`${what}: string index ${index} outside the table`);
	return strings[i];
}
function byId(list, what) {
	const map = new Map();
	for (const item of list) {
		const id = big(item.id);
		if (id === 0n)
			fail(`${what} with id 0`);
		if (map.has(id))
			fail(`two ${what}s with id ${id}`);
		map.set(id, item);
	}
	return map;
}

if (strings[0] !== '')
	fail('string_table[0] is not ""');
const types = profile.sampleType.map((t, i) => [str(t.type, `sample_type ${i}`),
	str(t.unit, `sample_type ${i}`)]);
const mappings = byId(profile.mapping, 'mapping');
const locations = byId(profile.location, 'location');
const functions = byId(profile.function, 'function');

for (const loc of profile.location) {
	const m = big(loc.mappingId);
	if (m !== 0n) {
		const mapping = mappings.get(m);
		if (mapping === undefined)
			fail(`location ${loc.id}: no mapping ${m}`);
		const addr = big(loc.address);
		if (addr < big(mapping.memoryStart) || addr >= big(mapping.memoryLimit))
			fail(`location ${loc.id}: address 0x${addr.toString(16)} outside its mapping`);
	}
	for (const line of loc.line)
		if (!functions.has(big(line.functionId)))
			fail(`location ${loc.id}: no function ${line.functionId}`);
}

const totals = types.map(() => 0n);
const flat = new Map();		// function id -> { samples, lines }
const inlined = new Map();	// "leaf\tcaller\tline" -> samples
const bySymbol = new Map();	// name of the last frame -> samples
let noFunction = 0n;
const stacks = [];		// [samples, locations, "root;...;leaf"]
const cumulative = new Map();	// function name -> samples
function frameNames(loc) {
	if (loc.line.length === 0) {
		const m = mappings.get(big(loc.mappingId));
		return [m === undefined ? '[unknown]' :
			`[${str(m.filename, `mapping ${m.id}`).replace(/.*\//, '')}]`];
	}
	return loc.line.map((l) => str(functions.get(big(l.functionId)).name,
		`function ${l.functionId}`));
}
for (const [i, sample] of profile.sample.entries()) {
	if (sample.value.length !== types.length)
		fail(`sample ${i}: ${sample.value.length} values for ${types.length} sample types`);
	if (sample.locationId.length === 0)
		fail(`sample ${i}: no location`);
	sample.value.forEach((v, k) => { totals[k] += big(v); });
	const leaf = locations.get(big(sample.locationId[0]));
	if (leaf === undefined)
		fail(`sample ${i}: no location ${sample.locationId[0]}`);
	for (const id of sample.locationId)
		if (!locations.has(big(id)))
			fail(`sample ${i}: no location ${id}`);
	const names = sample.locationId.flatMap((id) => frameNames(locations.get(big(id))));
	stacks.push([big(sample.value[0]), sample.locationId.length,
		[...names].reverse().join(';'), sample.value.map(big).join(',')]);
	for (const name of new Set(names))
		cumulative.set(name, (cumulative.get(name) ?? 0n) + big(sample.value[0]));
	if (leaf.line.length === 0) {
		noFunction += big(sample.value[0]);
		continue;
	}
	const frame = leaf.line[0];	// the innermost frame: flat profile
	const key = big(frame.functionId);
	const entry = flat.get(key) ?? { samples: 0n, lines: new Set() };
	entry.samples += big(sample.value[0]);
	if (big(frame.line) > 0n)
		entry.lines.add(Number(frame.line));
	flat.set(key, entry);
	const last = leaf.line[leaf.line.length - 1];
	const symbol = str(functions.get(big(last.functionId)).name, `function ${last.functionId}`);
	bySymbol.set(symbol, (bySymbol.get(symbol) ?? 0n) + big(sample.value[0]));
	if (leaf.line.length > 1) {
		const k = [str(functions.get(key).name, `function ${key}`),
			str(functions.get(big(last.functionId)).name, `function ${last.functionId}`),
			big(last.line)].join('\t');
		inlined.set(k, (inlined.get(k) ?? 0n) + big(sample.value[0]));
	}
}

const out = [];
types.forEach(([type, unit], k) => out.push(['sample_type', type, unit, totals[k]]));
if (profile.periodType)
	out.push(['period', str(profile.periodType.type, 'period_type'),
		str(profile.periodType.unit, 'period_type'), big(profile.period)]);
if (big(profile.defaultSampleType) !== 0n)
	out.push(['default', str(profile.defaultSampleType, 'default_sample_type')]);
out.push(['time', big(profile.timeNanos), big(profile.durationNanos)]);
out.push(['counts', profile.sample.length, profile.location.length,
	profile.function.length, profile.mapping.length]);
for (const m of profile.mapping)
	out.push(['mapping', big(m.id), '0x' + big(m.memoryStart).toString(16),
		'0x' + big(m.memoryLimit).toString(16), big(m.fileOffset),
		str(m.filename, `mapping ${m.id}`), str(m.buildId, `mapping ${m.id}`),
		Number(!!m.hasFunctions), Number(!!m.hasFilenames),
		Number(!!m.hasLineNumbers)]);
const rows = [...flat.entries()].map(([id, e]) => {
	const f = functions.get(id);
	const lines = [...e.lines].sort((a, b) => a - b);
	return [e.samples, str(f.name, `function ${id}`),
		str(f.systemName, `function ${id}`), str(f.filename, `function ${id}`),
		big(f.startLine), lines.length ? lines.join(',') : '-'];
});
rows.sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) :
	(a[0] > b[0] ? -1 : 1)));
for (const r of rows)
	out.push(['function', ...r]);
for (const [k, n] of inlined)
	out.push(['inlined', n, k]);
for (const [name, n] of bySymbol)
	out.push(['symbol', n, name]);
out.push(['no_function', noFunction]);
for (const c of profile.comment)
	out.push(['comment', str(c, 'comment')]);
for (const st of stacks)
	out.push(['stack', ...st.slice(0, 3)]);
for (const st of stacks)
	out.push(['values', st[3], st[2]]);
const cum = [...cumulative.entries()];
cum.sort((a, b) => (a[1] === b[1] ? (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0) :
	(a[1] > b[1] ? -1 : 1)));
for (const [name, n] of cum)
	out.push(['cum', n, name]);
process.stdout.write(out.map((r) => r.join('\t')).join('\n') + '\n');
