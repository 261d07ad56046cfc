// report.html's charts: the numbers of report.md's charts (hammerData,
// report/chart.Data) fed to uPlot, drawn in the charts' own colours and
// dashes (hammerStyle). The page reads without this script; it only
// adds the interactive charts.
(function () {
  'use strict';
  const D = hammerData, S = hammerStyle;

  // fmtMs renders milliseconds as report.md does.
  function fmtMs(v) {
    if (v == null || isNaN(v)) return '–';
    if (v === 0) return '0';
    if (v >= 999.5) return (v / 1000).toFixed(2) + ' s';
    if (v >= 9.95) return v.toFixed(0) + ' ms';
    return v.toFixed(v >= 1 ? 1 : 3) + ' ms';
  }

  // runSeries is the series of one run, in its colour and dash.
  function runSeries(name, extra) {
    const st = S.runs[name] || { colour: '#7f7f7f' };
    return Object.assign({ label: name, stroke: st.colour, width: 1.6, dash: st.dash, spanGaps: true }, extra);
  }

  // plot draws a chart into its figure, or says it has no data.
  function plot(name, opts, data) {
    const el = document.querySelector('figure[data-chart="' + name + '"] .plot');
    if (!el) return;
    if (!data || data.length < 2 || data[0].length === 0) {
      el.textContent = 'no data';
      return;
    }
    opts.width = Math.max(480, Math.min(1300, el.clientWidth || 960));
    opts.height = opts.height || 400;
    opts.cursor = Object.assign({ drag: { x: true, y: false } }, opts.cursor);
    el.uplot = new uPlot(opts, data, el);
  }

  // counts are the steps of an axis of whole numbers.
  const counts = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1e3, 2e3, 2.5e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 1e7];

  // axisMs labels an axis in milliseconds, leaving the splits a log
  // scale gives no label (null) blank.
  const axisMs = (u, splits) => splits.map(v => (v == null ? '' : fmtMs(v)));

  // positive turns values that a log scale cannot show into gaps.
  const positive = v => (v > 0 ? v : null);

  // nines maps a percentile to its number of nines: 90 → 1, 99 → 2.
  const nines = p => -Math.log10(1 - p / 100);
  const percentile = n => 100 * (1 - Math.pow(10, -n));
  // fmtPct renders a percentile with the decimals its nines need (an
  // axis: 90%, 99%, 99.9%) or one more (a hovered value).
  function fmtPct(p, more) {
    if (p == null) return '–';
    const n = Math.round(nines(p) * 1e6) / 1e6;
    return p.toFixed(Math.max(0, Math.min(6, (more ? Math.ceil(n) : Math.round(n)) - (more ? 1 : 2)))) + '%';
  }

  function spectrum() {
    const runs = D.latency_spectrum || [];
    const tables = runs.map(s => [s.points.map(p => nines(p.percentile)), s.points.map(p => positive(p.ms))]);
    plot('latency-spectrum', {
      scales: { x: { time: false }, y: { distr: 3 } },
      series: [{ label: 'percentile', value: (u, v) => (v == null ? '–' : fmtPct(percentile(v), true)) }]
        .concat(runs.map(s => runSeries(s.run, { value: (u, v) => fmtMs(v) }))),
      axes: [
        { label: 'percentile', incrs: [1], values: (u, splits) => splits.map(n => fmtPct(percentile(n))) },
        { label: 'latency (ms)', size: 70, values: axisMs },
      ],
    }, tables.length ? uPlot.join(tables) : null);
  }

  function phases() {
    const rows = D.phases || [];
    const parts = [
      ['lock wait', r => r.lock_wait_ms, '#f28e2b'],
      ['critical section', r => r.critical_ms, '#4e79a7'],
      ['release', r => r.release_ms, '#59a14f'],
      ['whole request (a service)', r => r.request_ms || 0, '#9c755f'],
    ].filter(p => rows.some(r => p[1](r) > 0));
    const xs = rows.map((r, i) => i);
    // Stacked bars: each series is drawn as its cumulative height, the
    // tallest first, so the ones below show in front; hover shows each
    // part's own value.
    const cum = parts.map((p, k) => rows.map(r => parts.slice(0, k + 1).reduce((a, q) => a + q[1](r), 0)));
    const order = parts.map((p, k) => k).reverse();
    const bars = uPlot.paths.bars({ size: [0.6, 80] });
    const series = [{ label: 'run', value: (u, i) => (i == null ? '–' : rows[i].run) }];
    const data = [xs];
    for (const k of order) {
      series.push({ label: parts[k][0], fill: parts[k][2], stroke: parts[k][2], paths: bars, points: { show: false },
        value: (u, v, si, i) => (i == null ? '–' : fmtMs(parts[k][1](rows[i]))) });
      data.push(cum[k]);
    }
    const handoff = rows.map(r => (r.handoff_ms > 0 ? r.handoff_ms : null));
    if (handoff.some(v => v != null)) {
      series.push({ label: 'lock handoff (per handoff)', stroke: '#000', paths: () => null,
        points: { show: true, size: 7, fill: '#000' }, value: (u, v) => fmtMs(v) });
      data.push(handoff);
    }
    plot('phases', {
      height: rows.length > 6 ? 520 : 440,
      scales: { x: { time: false, range: [-0.5, Math.max(0.5, rows.length - 0.5)] } },
      series: series,
      axes: [
        { incrs: [1], space: 8, rotate: rows.length > 6 ? -60 : 0, size: rows.length > 6 ? 170 : 40,
          font: rows.length > 20 ? '10px system-ui, sans-serif' : '12px system-ui, sans-serif',
          values: (u, splits) => splits.map(i => (rows[i] ? rows[i].run : '')) },
        { label: 'mean time (ms)', size: 70, values: axisMs },
      ],
    }, data);
  }

  function sold() {
    const runs = D.sold_over_time || [];
    const tables = runs.map(s => [s.steps.map(p => p.ms), s.steps.map(p => p.n)]);
    const stepped = uPlot.paths.stepped({ align: 1 });
    plot('sold-over-time', {
      scales: { x: { time: false } },
      series: [{ label: 'ms since go', value: (u, v) => (v == null ? '–' : '+' + fmtMs(v)) }]
        .concat(runs.map(s => runSeries(s.run, { paths: stepped }))),
      axes: [{ label: 'time since the go signal (ms)' }, { label: 'seats sold', size: 60, incrs: counts }],
      hooks: { drawClear: [u => shadeWindows(u, runs.filter((s, i) => u.series[i + 1].show).map(s => s.faults || []))] },
    }, tables.length ? uPlot.join(tables) : null);
  }

  // shadeWindows shades, behind a chart's lines, when a fault was in
  // force in one of the runs shown: the union of their fault windows
  // ({start_ms, end_ms} in the unit of the chart's x scale).
  function shadeWindows(u, perRun) {
    const ws = [].concat(...perRun).map(w => [w.start_ms, Math.max(w.end_ms, w.start_ms)]).sort((a, b) => a[0] - b[0]);
    const union = [];
    for (const w of ws) {
      const last = union[union.length - 1];
      if (last && w[0] <= last[1]) last[1] = Math.max(last[1], w[1]);
      else union.push(w.slice());
    }
    const ctx = u.ctx;
    ctx.save();
    ctx.fillStyle = 'rgba(130, 80, 223, 0.14)';
    for (const w of union) {
      const x0 = u.valToPos(w[0], 'x', true), x1 = u.valToPos(w[1], 'x', true);
      const left = Math.max(u.bbox.left, x0), right = Math.min(u.bbox.left + u.bbox.width, Math.max(x1, x0 + 2));
      if (right > left) ctx.fillRect(left, u.bbox.top, right - left, u.bbox.height);
    }
    // Where each window starts and ends, while there are few enough to
    // tell apart: overlapping windows otherwise merge into one shade.
    if (ws.length <= 30) {
      ctx.fillStyle = 'rgba(130, 80, 223, 0.55)';
      for (const x of [].concat(...ws)) {
        const px = u.valToPos(x, 'x', true);
        if (px >= u.bbox.left && px <= u.bbox.left + u.bbox.width) ctx.fillRect(Math.round(px), u.bbox.top, 1, u.bbox.height);
      }
    }
    ctx.restore();
  }

  // pickFault adds, for a folder of many runs (a gate), a choice of the
  // fault whose runs the run charts show.
  function pickFault() {
    const runs = D.runs || [];
    const hint = document.querySelector('#charts .hint');
    if (runs.length <= 12 || !hint) return;
    const faults = [...new Set(runs.map(r => r.variant || 'none'))];
    const label = document.createElement('label');
    label.textContent = 'Runs shown: ';
    const sel = document.createElement('select');
    sel.id = 'fault-pick';
    for (const f of ['every run'].concat(faults)) {
      const o = document.createElement('option');
      o.value = f;
      o.textContent = f === 'every run' ? f : 'fault ' + f;
      sel.appendChild(o);
    }
    sel.addEventListener('change', () => {
      for (const el of document.querySelectorAll('#charts .plot')) {
        const u = el.uplot;
        if (!u) continue;
        u.batch(() => u.series.forEach((s, i) => {
          const run = runs.find(r => r.name === s.label);
          if (i > 0 && run) u.setSeries(i, { show: sel.value === 'every run' || (run.variant || 'none') === sel.value });
        }));
      }
    });
    label.appendChild(sel);
    hint.after(label);
  }

  function rate() {
    const r = D.attempts_per_second || { series: [] };
    const n = Math.max(0, ...r.series.map(s => s.per_second.length));
    const xs = Array.from({ length: n }, (v, i) => ((i + 0.5) * r.bucket_ms) / 1000);
    // The fault windows, in seconds, when the folder is few enough runs
    // for them to mean something summed (not a gate).
    const windows = (D.runs || []).length > 12 ? [] : (D.sold_over_time || []).map(s =>
      (s.faults || []).map(w => ({ start_ms: w.start_ms / 1000, end_ms: w.end_ms / 1000 })));
    plot('attempts-per-second', {
      scales: { x: { time: false } },
      hooks: { drawClear: [u => shadeWindows(u, windows)] },
      series: [{ label: 's since go', value: (u, v) => (v == null ? '–' : v.toFixed(3) + ' s') }]
        .concat(r.series.map(s => ({ label: s.outcome + ' (' + s.total + ')', stroke: S.outcomes[s.outcome] || '#7f7f7f',
          width: 1.6, value: (u, v) => (v == null ? '–' : v.toFixed(0) + '/s') }))),
      axes: [{ label: 'time since the go signal (s)' }, { label: 'attempts per second', size: 70 }],
    }, [xs].concat(r.series.map(s => xs.map((x, i) => (i < s.per_second.length ? s.per_second[i] : null)))));
  }

  function lockWait() {
    const lw = D.lock_wait || { edges_ms: [], runs: [] };
    // Each bin's count holds from its lower edge to the next; the last
    // one is repeated at the top edge so that its step is drawn.
    const xs = lw.edges_ms.map(positive);
    const stepped = uPlot.paths.stepped({ align: 1 });
    plot('lock-wait', {
      scales: { x: { time: false, distr: 3 } },
      series: [{ label: 'wait from', value: (u, v) => fmtMs(v) }]
        .concat(lw.runs.map(r => runSeries(r.run, { paths: stepped, value: (u, v) => (v == null ? '–' : v + ' attempts') }))),
      axes: [{ label: 'lock wait (ms, log scale)', values: axisMs }, { label: 'attempts', size: 60, incrs: counts }],
    }, lw.runs.length && xs.length > 1 ? [xs].concat(lw.runs.map(r => r.counts.concat([r.counts[r.counts.length - 1]]))) : null);
  }

  // The charts and their hint wait hidden for this script.
  for (const el of document.querySelectorAll('#charts [hidden]')) el.hidden = false;

  for (const draw of [spectrum, phases, sold, rate, lockWait, pickFault]) {
    try {
      draw();
    } catch (e) {
      console.error('report.html: ' + draw.name + ': ' + e);
    }
  }
})();
