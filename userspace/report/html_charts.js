// SPDX-License-Identifier: MIT
// The charts of report.html, drawn with Chart.js from the results.json
// documents embedded in the page (one per run; several for `merge`). Text
// from the documents reaches the page only through textContent and
// Chart.js's canvas labels, never as HTML.
'use strict';
(function () {
	const docs = JSON.parse(
		document.getElementById('encbench-data').textContent);
	const multi = docs.length > 1;
	const palette = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759',
		'#76b7b2', '#edc948', '#b07aa1', '#ff9da7', '#9c755f'];
	const baselineColor = '#9aa5b1';
	const layerColors = {
		'fs': '#4e79a7', 'crypt-queue': '#f28e2b', 'crypt': '#e15759',
		'dmcrypt-write': '#ff9da7', 'dm': '#b07aa1',
		'blk-queue': '#edc948', 'device': '#59a14f',
		'cpu-wait': '#76b7b2', 'other': '#bab0ac'
	};
	let charts = 0;

	Chart.defaults.animation = false;
	Chart.defaults.font.family = 'system-ui, sans-serif';
	Chart.defaults.maintainAspectRatio = false;

	function el(tag, cls, text) {
		const e = document.createElement(tag);
		if (cls)
			e.className = cls;
		if (text !== undefined)
			e.textContent = text;
		return e;
	}

	function uniq(list) {
		return list.filter((x, i) => list.indexOf(x) === i);
	}

	// One colour per series, the same in every chart: the baseline grey,
	// the others from the palette.
	function colorOf(di, k) {
		if (!multi)
			return k === 0 ? baselineColor :
				palette[(k - 1) % palette.length];
		// Merged hosts: one colour per host, its baseline pale.
		return palette[di % palette.length] + (k === 0 ? '66' : '');
	}

	// The name a run's series goes by: the target, or host/target.
	function series(doc, target) {
		return multi ? doc.meta.hostname + ' ' + target : target;
	}

	function fmt(v) {
		if (v === null || !isFinite(v))
			return 'n/a';
		const a = Math.abs(v);
		if (a >= 1000)
			return v.toFixed(0);
		if (a >= 100)
			return v.toFixed(1);
		if (a >= 0.01 || a === 0)
			return v.toFixed(3);
		return v.toPrecision(3);
	}

	function signed(v) {
		return (v > 0 ? '+' : '') + fmt(v);
	}

	function fmtNs(ns) {
		const u = [[1e9, 's'], [1e6, 'ms'], [1e3, 'us']];
		for (const [div, name] of u)
			if (ns >= div)
				return +(ns / div).toPrecision(3) + ' ' + name;
		return ns + ' ns';
	}

	// One chart in its own figure: a title, a canvas, a caption.
	function addChart(container, title, caption, config, height) {
		const fig = el('figure', 'chart');
		fig.appendChild(el('figcaption', 'title', title));
		const box = el('div', 'canvas-box');
		box.style.height = (height || 260) + 'px';
		const canvas = el('canvas');
		box.appendChild(canvas);
		fig.appendChild(box);
		if (caption)
			fig.appendChild(el('p', 'caption', caption));
		document.getElementById(container).appendChild(fig);
		new Chart(canvas, config);
		charts++;
	}

	// 95 % interval whiskers on horizontal bars, and the mean beside them.
	const whiskers = {
		id: 'whiskers',
		afterDatasetsDraw(chart) {
			const ctx = chart.ctx;
			const x = chart.scales.x;
			chart.data.datasets.forEach((ds, di) => {
				const meta = chart.getDatasetMeta(di);
				if (!ds.ci || meta.hidden)
					return;
				meta.data.forEach((bar, i) => {
					const ci = ds.ci[i];
					if (!ci || ci[0] === null || ci[1] === null)
						return;
					// An interval reaching below 0 (few, noisy
					// runs) is cut at the axis, not drawn outside.
					const lo = Math.max(x.getPixelForValue(ci[0]),
						chart.chartArea.left);
					const hi = x.getPixelForValue(ci[1]);
					const h = Math.min(8, bar.height / 3);
					ctx.save();
					ctx.strokeStyle = '#222';
					ctx.lineWidth = 1.5;
					ctx.beginPath();
					ctx.moveTo(lo, bar.y);
					ctx.lineTo(hi, bar.y);
					ctx.moveTo(lo, bar.y - h);
					ctx.lineTo(lo, bar.y + h);
					ctx.moveTo(hi, bar.y - h);
					ctx.lineTo(hi, bar.y + h);
					ctx.stroke();
					ctx.fillStyle = '#222';
					ctx.textBaseline = 'middle';
					ctx.font = '12px system-ui, sans-serif';
					ctx.fillText(fmt(ds.data[i]) + ' ' + ds.unit,
						Math.max(hi, bar.x) + 6, bar.y);
					ctx.restore();
				});
			});
		}
	};

	// Every (workload, metric) in the runs, in their order.
	function metrics() {
		const out = [];
		for (const d of docs)
			for (const r of d.results)
				if (!out.some(m => m.workload === r.workload &&
					      m.metric === r.metric))
					out.push({workload: r.workload,
						  metric: r.metric, unit: r.unit,
						  higher: r.higher_is_better});
		return out;
	}

	function resultOf(doc, target, m) {
		return doc.results.find(r => r.target === target &&
			r.workload === m.workload && r.metric === m.metric);
	}

	// null ends: Fieller's interval has no bound (results.json's
	// penalty_ci95_unbounded).
	function ciText(ci) {
		return ci[0] === null || ci[1] === null ? 'unbounded' :
			signed(ci[0]) + ' to ' + signed(ci[1]) + ' %';
	}

	// Not disk figures (cached reads, writes timed into the page
	// cache): no penalty is claimed, as in the text report.
	function penaltyOf(c)
	{
		if (c.cached)
			return 'cached, not a disk figure (' +
			       Math.round(c.cached_pct) +
			       ' % from the page cache)';
		if (c.buffered)
			return 'buffered, not a disk figure (writes timed ' +
			       'into the page cache)';
		return signed(c.penalty_pct) + ' % (95 % CI ' +
		       ciText(c.penalty_ci95_pct) + ') vs ' + c.baseline +
		       (c.significant ? '' : ', not significant');
	}

	function penaltyText(doc, m) {
		return doc.comparisons
			.filter(c => c.workload === m.workload &&
				     c.metric === m.metric)
			.map(c => series(doc, c.target) + ' ' + penaltyOf(c))
			.join('; ');
	}

	function comparisonCharts() {
		for (const m of metrics()) {
			const labels = [], data = [], ci = [], colors = [];
			let max = 0;
			docs.forEach((d, di) => {
				d.targets.forEach((t, k) => {
					const r = resultOf(d, t.name, m);
					if (!r)
						return;
					labels.push(series(d, t.name) +
						(k === 0 ? ' (baseline)' : ''));
					data.push(r.mean);
					ci.push(r.ci95);
					colors.push(colorOf(di, k));
					max = Math.max(max, r.mean,
						r.ci95[1] || 0);
				});
			});
			const caption = docs.map(d => penaltyText(d, m))
				.filter(s => s).join('; ');
			addChart('cmp-charts', m.workload + ': ' + m.metric +
				' (' + m.unit + '), ' + (m.higher ?
				'higher is better' : 'lower is better'),
				caption ? 'Penalty: ' + caption + '.' : '', {
				type: 'bar',
				data: {labels, datasets: [{
					label: m.metric, data, ci,
					unit: m.unit, backgroundColor: colors
				}]},
				options: {
					indexAxis: 'y',
					layout: {padding: {right: 80}},
					plugins: {legend: {display: false}},
					scales: {x: {beginAtZero: true,
						suggestedMax: max * 1.05,
						title: {display: true,
							text: m.metric + ' (' + m.unit +
							'), mean with 95 % interval'}}}
				},
				plugins: [whiskers]
			}, 50 + 42 * labels.length);
		}
	}

	// tune: the ranking as bars with whiskers, then each op's added
	// time per call stacked by wait component.
	function tuneCharts() {
		for (const d of docs) {
			if (!d.tune)
				continue;
			const vs = d.tune.variants.filter(v => v.ranked)
				.sort((a, b) => a.rank - b.rank ||
					a.penalty_pct - b.penalty_pct);
			if (!vs.length)
				continue;
			const tied = v => vs.some(u => u !== v &&
				u.rank === v.rank);
			const labels = vs.map(v => v.rank + (tied(v) ? '= ' :
				' ') + v.name + (v.reference ? ' (ref)' : ''));
			addChart('tune-charts', series(d, d.tune.kind) +
				': penalty vs plain on ' + d.tune.score + ' of ' +
				d.tune.workload, d.tune.recommendation.summary, {
				type: 'bar',
				data: {labels, datasets: [{
					label: 'penalty', unit: '%',
					data: vs.map(v => v.penalty_pct),
					ci: vs.map(v => v.penalty_ci95_pct),
					backgroundColor: vs.map(v => v.reference ?
						baselineColor : palette[0])
				}]},
				options: {
					indexAxis: 'y',
					layout: {padding: {right: 80}},
					plugins: {legend: {display: false}},
					scales: {x: {beginAtZero: true,
						suggestedMax: Math.max(...vs.map(v =>
							v.penalty_ci95_pct[1] || 0)) * 1.05,
						title: {
						display: true, text: 'penalty vs ' +
						'plain (%), with 95 % interval'}}}
				},
				plugins: [whiskers]
			}, 50 + 42 * labels.length);
			const ops = uniq(vs.flatMap(v =>
				v.added_wait.map(o => o.op)));
			for (const op of ops) {
				const names = Object.keys(layerColors)
					.filter(l => l !== 'other');
				const datasets = names.map(l => ({
					label: l, backgroundColor: layerColors[l],
					data: vs.map(v => {
						const o = v.added_wait.find(
							x => x.op === op);
						return o ? o.by_component_ns[l] / 1e6 :
							0;
					})
				}));
				addChart('tune-charts', op + ': time added per ' +
					'call against plain, by what the caller ' +
					'waited for', '', {
					type: 'bar',
					data: {labels, datasets},
					options: {
						indexAxis: 'y',
						scales: {x: {stacked: true, title: {
							display: true, text: 'ms per call'}},
							y: {stacked: true}}
					}
				}, 60 + 42 * labels.length);
			}
		}
	}

	function iterationCharts() {
		for (const m of metrics()) {
			const datasets = [];
			let n = 0;
			docs.forEach((d, di) => d.targets.forEach((t, k) => {
					const r = resultOf(d, t.name, m);
					if (!r)
						return;
					n = Math.max(n, r.samples.length);
					datasets.push({
						label: series(d, t.name),
						data: r.samples,
						borderColor: colorOf(di, k),
						backgroundColor: colorOf(di, k),
						pointRadius: r.samples.length > 50 ? 1 : 3,
						borderWidth: 1.5
					});
				}));
			const labels = Array.from({length: n}, (_, i) => i + 1);
			addChart('iter-charts', m.workload + ': ' + m.metric +
				' per iteration', 'Drift shows as a slope, an ' +
				'outlier as a lone point.', {
				type: 'line', data: {labels, datasets},
				options: {scales: {
					x: {title: {display: true, text: 'iteration'}},
					y: {title: {display: true, text: m.metric +
						' (' + m.unit + ')'}}}}
			});
		}
	}

	// The wait decomposition when the attribution has it: what the
	// caller waited for, by layer, as a share of its time in the
	// syscall (the parts add up to 100 %). Else the share of that time
	// each layer below was busy.
	function hasWait(a) {
		return a.wait && a.wait.available && a.wait.total_ns > 0;
	}

	function whereCharts() {
		for (const d of docs)
			for (const w of uniq(d.attribution.map(a => a.workload))) {
				const rows = d.attribution.filter(a => a.workload === w);
				const waits = rows.some(hasWait);
				const labels = rows.map(a => series(d, a.target) + ' ' +
					a.op + ' (' + fmtNs(a.syscall_mean_ns) + '/call)');
				const names = waits ?
					uniq(rows.filter(hasWait).flatMap(a =>
						Object.keys(a.wait.ns)
							.filter(k => a.wait.ns[k] > 0))) :
					uniq(rows.flatMap(a => a.layers
						.filter(l => l.layer !== 'syscall' &&
							l.available && l.busy_ns > 0)
						.map(l => l.layer)));
				const datasets = names.map((name, i) => ({
					label: name,
					backgroundColor: layerColors[name] ||
						palette[i % palette.length],
					data: rows.map(a => {
						if (waits)
							return hasWait(a) ? 100 *
								(a.wait.ns[name] || 0) /
								a.wait.total_ns : 0;
						const sc = a.layers.find(l => l.layer === 'syscall');
						const l = a.layers.find(x => x.layer === name);
						return sc && l && sc.busy_ns ?
							100 * l.busy_ns / sc.busy_ns : 0;
					})
				}));
				addChart('where-charts', (multi ? d.meta.hostname + ': ' : '') +
					w + ': where the time goes', waits ?
					'What the caller waited for, as a share of its ' +
					'time in the syscall: each stretch of its wait ' +
					'goes to one layer, so the parts add up to 100 %.' :
					'Share of the syscall\u2019s wall time during ' +
					'which each layer had work in flight. Layers ' +
					'overlap (the device and the decrypt workers ' +
					'run at once), so a bar can pass 100 %.', {
					type: 'bar', data: {labels, datasets},
					options: {indexAxis: 'y', scales: {
						x: {stacked: true, beginAtZero: true,
							title: {display: true,
								text: '% of syscall time'}},
						y: {stacked: true}}}
				}, 70 + 40 * labels.length);
			}
	}

	// A slot by its lower bound, to two digits: 1 us, 2 us, 4.1 us, 16 us.
	function slotLabel(i) {
		const ns = Math.pow(2, i);
		for (const [div, name] of [[1e9, 's'], [1e6, 'ms'], [1e3, 'us'], [1, 'ns']])
			if (ns >= div || div === 1) {
				const v = ns / div;
				return (v >= 10 ? Math.round(v) : v.toFixed(1)) + ' ' + name;
			}
	}

	function histogramCharts() {
		const keys = [];
		for (const d of docs)
			for (const a of d.attribution)
				for (const l of a.layers) {
					const key = a.workload + ' ' + a.op + ' ' + l.layer;
					if (l.hist && l.hist.slots.some(c => c > 0) &&
					    !keys.includes(key))
						keys.push(key);
				}
		for (const key of keys) {
			const [w, op, layer] = key.split(' ');
			const sets = [];
			let first = 64, last = -1;
			docs.forEach((d, di) => d.attribution.forEach(a => {
					if (a.workload !== w || a.op !== op)
						return;
					const l = a.layers.find(x => x.layer === layer);
					const s = l && l.hist ? l.hist.slots : [];
					const total = s.reduce((x, y) => x + y, 0);
					if (!total)
						return;
					s.forEach((c, i) => {
						if (c) {
							first = Math.min(first, i);
							last = Math.max(last, i);
						}
					});
					const k = d.targets.findIndex(t => t.name === a.target);
					sets.push({name: series(d, a.target), s, total,
						color: colorOf(di, Math.max(k, 0))});
				}));
			const labels = [];
			for (let i = first; i <= last; i++)
				labels.push(slotLabel(i));
			const datasets = sets.map(x => ({
				label: x.name + ' (' + x.total + ' items)',
				backgroundColor: x.color,
				data: labels.map((_, j) =>
					100 * (x.s[first + j] || 0) / x.total)
			}));
			addChart('hist-charts', w + ', ' + op + ', ' + layer +
				': latency of one item', '', {
				type: 'bar', data: {labels, datasets},
				options: {scales: {
					x: {title: {display: true,
						text: 'latency from (each range to twice that)'}},
					y: {title: {display: true,
						text: '% of items'}}}}
			}, 220);
		}
	}

	// A section the runs have nothing for says so rather than stay empty.
	function sayIfEmpty(container, text) {
		const c = document.getElementById(container);
		if (!c.children.length)
			c.replaceWith(el('p', 'off', text));
	}

	tuneCharts();
	comparisonCharts();
	iterationCharts();
	whereCharts();
	histogramCharts();
	if (!docs.some(d => d.tune))
		document.getElementById('tune').remove();
	sayIfEmpty('cmp-charts', 'No results to compare.');
	sayIfEmpty('iter-charts', 'No iterations recorded.');
	sayIfEmpty('where-charts', 'No attribution: tracing was off (the ' +
		'reason is under Verdicts).');
	sayIfEmpty('hist-charts', 'No latency histograms: tracing was off.');
	document.body.dataset.charts = String(charts);
	document.body.dataset.chartsDone = 'yes';
})();
