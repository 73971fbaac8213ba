// split.js - two JavaScript functions in turns, each timed by the program
// itself (the process's CPU time around each call: its main thread's,
// but for V8's compiler and GC threads, a few samples in a thousand): the
// true split of its CPU time between them, for bench/jit.py.  SECONDS is
// CPU time, so a loaded machine gives the same work.
// usage: node [--perf-basic-prof|--perf-prof] split.js SECONDS [A_UNITS B_UNITS]
'use strict';
const seconds = Number(process.argv[2] || 2);
const aUnits = Number(process.argv[3] || 3), bUnits = Number(process.argv[4] || 1);

function hotA(n) {
	let s = 0;
	for (let i = 0; i < n; i++)
		s += Math.sqrt(i) * 1.0001;
	return s;
}

function hotB(n) {
	let s = 0;
	for (let i = 0; i < n; i++)
		s += Math.sqrt(i) * 1.0002;
	return s;
}

const now = () => {
	const u = process.cpuUsage();

	return (u.user + u.system) / 1e6;
};
let inA = 0, inB = 0, sink = 0;
const end = now() + seconds;
// each turn some ten calls, timed as one: the clock's cost spread thin
while (now() < end) {
	let t0 = now();
	for (let k = 0; k < 10 * aUnits; k++)
		sink += hotA(100000);
	let t1 = now();
	for (let k = 0; k < 10 * bUnits; k++)
		sink += hotB(100000);
	let t2 = now();
	inA += t1 - t0;
	inB += t2 - t1;
}
console.log(`hotA ${inA.toFixed(6)} hotB ${inB.toFixed(6)} sink ${sink > 0 ? 1 : 0}`);
