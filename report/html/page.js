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

  // positive turns values that a log scale cannot show into gaps.
  const positive = v => (v > 0 ? v : null);

  // nines maps a percentile to its number of nines: 90 → 1, 99 → 2.
  const nines = p => -Math.log10(1 - p / 100);
  const percentile = n => 100 * (1 - Math.pow(10, -n));
  function fmtPct(p) {
    if (p == null) return '–';
    const s = p.toFixed(Math.max(0, Math.min(6, Math.ceil(nines(p)) - 1)));
    return s + '%';
  }

  function spectrum() {
    const runs = D.latency_spectrum || [];
    const tables = runs.map(s => [s.points.map(p => nines(p.percentile)), s.points.map(p => positive(p.ms))]);
    plot('latency-spectrum', {
      scales: { x: { time: false }, y: { distr: 3 } },
      series: [{ label: 'percentile', value: (u, v) => (v == null ? '–' : fmtPct(percentile(v))) }]
        .concat(runs.map(s => runSeries(s.run, { value: (u, v) => fmtMs(v) }))),
      axes: [
        { label: 'percentile', incrs: [1], values: (u, splits) => splits.map(n => fmtPct(percentile(n))) },
        { label: 'latency (ms)', size: 70, values: (u, splits) => splits.map(v => fmtMs(v)) },
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
      height: 440,
      scales: { x: { time: false, range: [-0.5, Math.max(0.5, rows.length - 0.5)] } },
      series: series,
      axes: [
        { incrs: [1], rotate: rows.length > 6 ? -30 : 0, size: rows.length > 6 ? 120 : 40,
          values: (u, splits) => splits.map(i => (rows[i] ? rows[i].run : '')) },
        { label: 'mean time (ms)', size: 70, values: (u, splits) => splits.map(v => fmtMs(v)) },
      ],
    }, data);
  }

  function sold() {
    const runs = D.sold_over_time || [];
    const tables = runs.map(s => [s.steps.map(p => p.ms), s.steps.map(p => p.n)]);
    const windows = [];
    runs.forEach(s => (s.faults || []).forEach(w => windows.push(w)));
    const stepped = uPlot.paths.stepped({ align: 1 });
    plot('sold-over-time', {
      scales: { x: { time: false } },
      series: [{ label: 'ms since go', value: (u, v) => (v == null ? '–' : '+' + fmtMs(v)) }]
        .concat(runs.map(s => runSeries(s.run, { paths: stepped }))),
      axes: [{ label: 'time since the go signal (ms)' }, { label: 'seats sold', size: 60, incrs: counts }],
      hooks: { drawClear: [u => shadeWindows(u, windows)] },
    }, tables.length ? uPlot.join(tables) : null);
  }

  // shadeWindows shades the fault windows behind a chart's lines.
  function shadeWindows(u, windows) {
    const ctx = u.ctx;
    ctx.save();
    ctx.fillStyle = 'rgba(130, 80, 223, 0.13)';
    for (const w of windows) {
      const x0 = u.valToPos(w.start_ms, 'x', true), x1 = u.valToPos(Math.max(w.end_ms, w.start_ms), 'x', true);
      const left = Math.max(u.bbox.left, x0), right = Math.min(u.bbox.left + u.bbox.width, Math.max(x1, x0 + 2));
      if (right > left) ctx.fillRect(left, u.bbox.top, right - left, u.bbox.height);
    }
    ctx.restore();
  }

  function rate() {
    const r = D.attempts_per_second || { series: [] };
    const n = Math.max(0, ...r.series.map(s => s.per_second.length));
    const xs = Array.from({ length: n }, (v, i) => ((i + 0.5) * r.bucket_ms) / 1000);
    plot('attempts-per-second', {
      scales: { x: { time: false } },
      series: [{ label: 's since go', value: (u, v) => (v == null ? '–' : v.toFixed(3) + ' s') }]
        .concat(r.series.map(s => ({ label: s.outcome + ' (' + s.total + ')', stroke: S.outcomes[s.outcome] || '#7f7f7f',
          width: 1.6, value: (u, v) => (v == null ? '–' : v.toFixed(0) + '/s') }))),
      axes: [{ label: 'time since the go signal (s)' }, { label: 'attempts per second', size: 70 }],
    }, [xs].concat(r.series.map(s => xs.map((x, i) => (i < s.per_second.length ? s.per_second[i] : null)))));
  }

  function lockWait() {
    const lw = D.lock_wait || { edges_ms: [], runs: [] };
    const xs = lw.edges_ms.slice(0, -1).map(positive);
    const stepped = uPlot.paths.stepped({ align: 1 });
    plot('lock-wait', {
      scales: { x: { time: false, distr: 3 } },
      series: [{ label: 'wait from', value: (u, v) => fmtMs(v) }]
        .concat(lw.runs.map(r => runSeries(r.run, { paths: stepped, value: (u, v) => (v == null ? '–' : v + ' attempts') }))),
      axes: [{ label: 'lock wait (ms)', values: (u, splits) => splits.map(v => fmtMs(v)) }, { label: 'attempts', size: 60, incrs: counts }],
    }, lw.runs.length && xs.length ? [xs].concat(lw.runs.map(r => r.counts)) : null);
  }

  for (const draw of [spectrum, phases, sold, rate, lockWait]) {
    try {
      draw();
    } catch (e) {
      console.error('report.html: ' + draw.name + ': ' + e);
    }
  }
})();
