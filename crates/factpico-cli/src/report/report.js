// factpico report: the row list and the per-row views. Dependency-free.
// Every text from the data goes into the page through textContent / title (never innerHTML);
// the data itself is read from the JSON data blocks of the page (fp-index, fp-r-N, fp-s-K).
(function () {
  'use strict';
  var $ = function (id) { return document.getElementById(id); };
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function json(id) { var s = $(id); return s ? JSON.parse(s.textContent) : null; }
  function fmt(v) {
    if (v === null || v === undefined) return 'null';
    if (typeof v !== 'number') return String(v);
    if (Number.isInteger(v)) return String(v);
    var a = Math.abs(v);
    return (a !== 0 && (a < 1e-3 || a >= 1e5)) ? v.toExponential(3) : v.toFixed(4);
  }
  // Support scores shade from red (0) to green (1); values outside [lo, hi] are clamped.
  function shade(v, lo, hi) {
    var t = hi > lo ? Math.min(1, Math.max(0, (v - lo) / (hi - lo))) : 0.5;
    return 'hsl(' + Math.round(t * 120) + ', 70%, 84%)';
  }

  var idx = json('fp-index');
  var cols = idx.columns, rows = idx.rows, systems = idx.systems;
  var NCOL0 = 5; // row entries: [row, id, system index or -1, flags, skipped?] then one value per column
  var FLAG_NULLS = 1, FLAG_WARN = 2, FLAG_ERR = 4;
  var state = { order: rows.map(function (_, i) { return i; }), sortCol: -1, sortDir: 1 };
  var ROW_H = 28;

  // ---- the list: sort, filter, virtual scrolling ----
  var listCols = cols.map(function (c, j) { return c.primary ? j : -1; }).filter(function (j) { return j >= 0; });
  if (!listCols.length) listCols = cols.map(function (_, j) { return j; }).slice(0, 6);
  var sysSel = $('fp-f-system'), colSel = $('fp-f-col'), sortSel = $('fp-sort');
  systems.forEach(function (s, k) { var o = el('option', null, s); o.value = String(k); sysSel.appendChild(o); });
  cols.forEach(function (c, j) {
    var o = el('option', null, c.name); o.value = String(j); colSel.appendChild(o);
    var o2 = el('option', null, c.name); o2.value = String(j); sortSel.appendChild(o2);
  });
  var gridCols = '5em minmax(8em, 2fr) minmax(6em, 1fr) ' + listCols.map(function () { return '7.5em'; }).join(' ') + ' 5em';
  var head = $('fp-list-head');
  head.style.gridTemplateColumns = gridCols;
  [['row', -2], ['id', -3], ['system', -4]].concat(listCols.map(function (j) { return [cols[j].name, j]; }))
    .concat([['flags', -5]]).forEach(function (h) {
      var b = el('button', 'fp-h', h[0]);
      b.type = 'button';
      b.dataset.col = String(h[1]);
      if (h[1] >= 0) b.title = cols[h[1]].description + (cols[h[1]].higher ? ' (higher is better)' : ' (lower is better)');
      b.addEventListener('click', function () { sortBy(h[1]); });
      head.appendChild(b);
    });

  function key(i, c) {
    var r = rows[i];
    if (c === -2) return r[0];
    if (c === -3) return r[1];
    if (c === -4) return r[2] < 0 ? null : systems[r[2]];
    if (c === -5) return r[3];
    return r[NCOL0 + c];
  }
  function sortBy(c, dir) {
    state.sortDir = dir || (state.sortCol === c ? -state.sortDir : 1);
    state.sortCol = c;
    sortSel.value = c >= 0 ? String(c) : '';
    apply();
  }
  function apply() {
    var sys = sysSel.value, fc = colSel.value === '' ? -1 : +colSel.value;
    var lo = parseFloat($('fp-f-min').value), hi = parseFloat($('fp-f-max').value);
    var q = $('fp-f-id').value.trim().toLowerCase();
    var wantNulls = $('fp-f-nulls').checked, wantWarn = $('fp-f-warn').checked;
    var out = [];
    for (var i = 0; i < rows.length; i++) {
      var r = rows[i];
      if (sys !== '' && String(r[2]) !== sys) continue;
      if (q && String(r[1]).toLowerCase().indexOf(q) < 0) continue;
      if (wantNulls && !(r[3] & FLAG_NULLS)) continue;
      if (wantWarn && !(r[3] & (FLAG_WARN | FLAG_ERR))) continue;
      if (fc >= 0) {
        var v = r[NCOL0 + fc];
        if ((!isNaN(lo) || !isNaN(hi)) && v === null) continue;
        if (!isNaN(lo) && v < lo) continue;
        if (!isNaN(hi) && v > hi) continue;
      }
      out.push(i);
    }
    var c = state.sortCol, d = state.sortDir;
    if (c !== -1) {
      out.sort(function (a, b) {
        var x = key(a, c), y = key(b, c);
        if (x === null && y === null) return a - b;
        if (x === null) return 1; // nulls last in both directions
        if (y === null) return -1;
        if (x < y) return -d;
        if (x > y) return d;
        return a - b;
      });
    }
    state.order = out;
    $('fp-count').textContent = out.length + ' of ' + rows.length + ' rows';
    Array.prototype.forEach.call(head.children, function (b) {
      b.classList.toggle('fp-sorted', +b.dataset.col === c);
      b.dataset.dir = +b.dataset.col === c ? (d > 0 ? 'asc' : 'desc') : '';
    });
    $('fp-canvas').style.height = (out.length * ROW_H) + 'px';
    $('fp-scroll').scrollTop = 0;
    draw(true);
  }
  var drawn = [-1, -1];
  function draw(force) {
    var sc = $('fp-scroll'), canvas = $('fp-canvas');
    var first = Math.max(0, Math.floor(sc.scrollTop / ROW_H) - 8);
    var last = Math.min(state.order.length, Math.ceil((sc.scrollTop + sc.clientHeight) / ROW_H) + 8);
    if (!force && first === drawn[0] && last === drawn[1]) return;
    drawn = [first, last];
    canvas.textContent = '';
    for (var p = first; p < last; p++) canvas.appendChild(listRow(state.order[p], p));
  }
  function listRow(i, p) {
    var r = rows[i];
    var a = el('a', 'fp-lrow');
    a.href = '#row=' + (i + 1); // the row number the page shows (1-based)
    a.dataset.i = String(i);
    a.style.top = (p * ROW_H) + 'px';
    a.style.gridTemplateColumns = gridCols;
    a.appendChild(el('span', 'fp-num', r[0]));
    a.appendChild(el('span', 'fp-id', r[1]));
    a.appendChild(el('span', null, r[2] < 0 ? '' : systems[r[2]]));
    listCols.forEach(function (j) {
      var v = r[NCOL0 + j];
      var s = el('span', 'fp-num' + (v === null ? ' fp-null' : ''), v === null ? 'null' : fmt(v));
      s.dataset.col = cols[j].name;
      if (v !== null) s.dataset.value = String(v);
      a.appendChild(s);
    });
    var f = [];
    if (r[4]) f.push('skipped');
    if (r[3] & FLAG_ERR) f.push('E');
    if (r[3] & FLAG_WARN) f.push('W');
    if (r[3] & FLAG_NULLS) f.push('N');
    var fl = el('span', 'fp-flags', f.join(' '));
    fl.title = 'N: has nulls, W: warnings, E: errors';
    a.appendChild(fl);
    return a;
  }
  $('fp-scroll').addEventListener('scroll', function () { draw(false); });
  window.addEventListener('resize', function () { draw(true); });
  ['fp-f-system', 'fp-f-col', 'fp-f-nulls', 'fp-f-warn'].forEach(function (id) { $(id).addEventListener('change', apply); });
  ['fp-f-min', 'fp-f-max', 'fp-f-id'].forEach(function (id) { $(id).addEventListener('input', apply); });
  sortSel.addEventListener('change', function () { sortBy(sortSel.value === '' ? -1 : +sortSel.value, 1); });
  $('fp-sort-dir').addEventListener('click', function () { if (state.sortCol !== -1) sortBy(state.sortCol, -state.sortDir); });
  $('fp-f-reset').addEventListener('click', function () {
    sysSel.value = ''; colSel.value = ''; $('fp-f-min').value = ''; $('fp-f-max').value = ''; $('fp-f-id').value = '';
    $('fp-f-nulls').checked = false; $('fp-f-warn').checked = false; state.sortCol = -1; sortSel.value = ''; apply();
  });
  // A histogram bar of the overview filters the list to its column range.
  Array.prototype.forEach.call(document.querySelectorAll('.fp-bar'), function (b) {
    b.addEventListener('click', function () {
      var j = cols.findIndex(function (c) { return c.name === b.dataset.col; });
      if (j < 0) return;
      colSel.value = String(j); $('fp-f-min').value = b.dataset.lo; $('fp-f-max').value = b.dataset.hi;
      var s = systems.indexOf(b.dataset.system); sysSel.value = s < 0 ? '' : String(s);
      apply(); location.hash = '#list';
    });
  });

  // ---- one row's view ----
  var sources = {};
  function sourceText(k) {
    if (k === null || k === undefined) return null;
    if (!(k in sources)) sources[k] = json('fp-s-' + k);
    return sources[k];
  }
  // Splits `text` at every span boundary; returns [{a, b}] pieces covering the text.
  function pieces(text, spans) {
    var cut = [0, text.length];
    spans.forEach(function (s) { cut.push(s[0], s[1]); });
    cut = cut.filter(function (x) { return x >= 0 && x <= text.length; }).sort(function (x, y) { return x - y; });
    var out = [];
    for (var k = 0; k + 1 < cut.length; k++) if (cut[k] < cut[k + 1]) out.push({ a: cut[k], b: cut[k + 1] });
    return out;
  }
  function inside(p, s) { return p.a >= s[0] && p.b <= s[1]; }

  function textPanel(title, text, sentences, extraSpans) {
    var box = el('div', 'fp-text');
    box.appendChild(el('h3', null, title));
    var body = el('div', 'fp-body');
    box.appendChild(body);
    if (text === null) {
      body.appendChild(el('p', 'fp-muted', 'Text not available: pass the scored input with --input.'));
      return { box: box, segs: [] };
    }
    var segs = [];
    pieces(text, sentences.concat(extraSpans)).forEach(function (p) {
      var s = el('span', 'fp-seg', text.slice(p.a, p.b));
      p.el = s;
      p.sent = sentences.findIndex(function (q) { return inside(p, q); });
      if (p.sent >= 0) { s.classList.add('fp-insent'); s.dataset.sent = String(p.sent); }
      segs.push(p);
      body.appendChild(s);
    });
    return { box: box, segs: segs };
  }

  var current = -1;
  function showRow(i) {
    if (!(i >= 0 && i < rows.length)) { showList(); return; }
    current = i;
    var r = rows[i];
    var view = $('fp-view');
    view.textContent = '';
    $('fp-listview').hidden = true;
    view.hidden = false;
    // The row data follows this script in the file: a row opened while the page is still
    // loading is drawn once it has arrived.
    if (!$('fp-r-' + i) && document.readyState === 'loading') {
      delete view.dataset.i;
      view.appendChild(el('p', 'fp-muted', 'Loading row ' + r[0] + '…'));
      document.addEventListener('DOMContentLoaded', function () { if (current === i) showRow(i); }, { once: true });
      return;
    }
    var d = json('fp-r-' + i) || {};
    view.dataset.i = String(i);

    var pos = state.order.indexOf(i);
    var nav = el('div', 'fp-nav');
    var back = el('a', 'fp-btn', '← list (Esc)'); back.href = '#list'; nav.appendChild(back);
    var prev = el('button', 'fp-btn', '↑ previous (k)'); prev.type = 'button'; prev.id = 'fp-prev';
    prev.addEventListener('click', function () { step(-1); }); nav.appendChild(prev);
    var next = el('button', 'fp-btn', '↓ next (j)'); next.type = 'button'; next.id = 'fp-next';
    next.addEventListener('click', function () { step(1); }); nav.appendChild(next);
    nav.appendChild(el('span', 'fp-muted', pos >= 0 ? (pos + 1) + ' of ' + state.order.length + ' in the list' : 'not in the filtered list'));
    view.appendChild(nav);

    var h = el('h2', 'fp-rowtitle');
    h.appendChild(el('span', 'fp-id', r[1]));
    h.appendChild(el('span', 'fp-muted', ' row ' + r[0] + (r[2] >= 0 ? ' · system ' + systems[r[2]] : '')));
    view.appendChild(h);
    if (d.skipped) view.appendChild(el('p', 'fp-error', 'Skipped: ' + d.skipped));

    // Scores, each null with its reason.
    var nulls = {};
    (d.nulls || []).forEach(function (n) { nulls[n[0]] = n[1]; });
    var sc = el('div', 'fp-scores');
    cols.forEach(function (c, j) {
      var v = r[NCOL0 + j];
      if (v === null && !(c.name in nulls)) return;
      var chip = el('span', 'fp-chip' + (v === null ? ' fp-null' : ''));
      chip.dataset.col = c.name;
      chip.appendChild(el('b', null, c.name + ' '));
      chip.appendChild(el('span', null, v === null ? 'null' : fmt(v)));
      if (v !== null) chip.dataset.value = String(v);
      chip.title = v === null ? 'null: ' + nulls[c.name] : c.description;
      sc.appendChild(chip);
    });
    view.appendChild(sc);

    // Texts side by side: summary sentences shaded by a support metric, evidence highlighted
    // in the abstract; word marks (DAE arcs) on the summary.
    var src = sourceText(d.src), sum = d.sum === undefined ? null : d.sum;
    var sent = d.sent || { source: [], summary: [] };
    var support = d.support || [];
    var evidence = [];
    support.forEach(function (m) { m.sentences.forEach(function (s) { evidence = evidence.concat(s.evidence || []); }); });
    var supSpans = [];
    support.forEach(function (m) { m.sentences.forEach(function (s) { supSpans.push(s.span); }); });
    // Spans that rows of the metric tables highlight (QA answers, arcs, chunks).
    // hl entries are [side (0 abstract, 1 summary), start, end].
    var hls = [[], []];
    (d.sections || []).forEach(function (sec) {
      sec.blocks.forEach(function (b) {
        (b.rows || []).forEach(function (row) {
          if (row && row.hl) row.hl.forEach(function (h) { hls[h[0]].push([h[1], h[2]]); });
        });
      });
    });
    var left = textPanel('Abstract', src, sent.source, evidence.concat(hls[0]));
    var right = textPanel('Summary', sum, sent.summary, supSpans.concat(hls[1]));
    left.box.id = 'fp-source'; right.box.id = 'fp-summary';

    var tools = el('div', 'fp-tools');
    var pick = null;
    if (support.length) {
      tools.appendChild(el('span', null, 'Shade summary sentences by '));
      pick = el('select'); pick.id = 'fp-support';
      support.forEach(function (m, k) { var o = el('option', null, m.label); o.value = String(k); pick.appendChild(o); });
      tools.appendChild(pick);
      tools.appendChild(el('span', 'fp-muted', ' (red = unsupported, green = supported; hover or click a sentence to highlight its best evidence in the abstract)'));
    } else {
      tools.appendChild(el('span', 'fp-muted', 'No per-sentence support in this row (a metric such as AlignScore, SummaC or MiniCheck gives it).'));
    }
    view.appendChild(tools);
    var texts = el('div', 'fp-texts');
    texts.appendChild(left.box); texts.appendChild(right.box);
    view.appendChild(texts);
    var info = el('div', 'fp-info'); info.id = 'fp-sentinfo';
    view.appendChild(info);

    function clearHl() { left.segs.forEach(function (p) { p.el.classList.remove('fp-hl'); }); }
    function applySupport() {
      right.segs.forEach(function (p) {
        p.el.style.backgroundColor = ''; p.el.classList.remove('fp-supported'); delete p.el.dataset.score; p.el.title = '';
        p.support = null;
      });
      clearHl();
      if (!pick) return;
      var m = support[+pick.value];
      m.sentences.forEach(function (s, k) {
        right.segs.forEach(function (p) {
          if (!inside(p, s.span)) return;
          p.support = s;
          p.el.classList.add('fp-supported');
          p.el.style.backgroundColor = shade(s.score, m.lo, m.hi);
          p.el.dataset.score = String(s.score);
          p.el.dataset.metric = m.metric;
          p.el.dataset.support = String(k);
          p.el.title = m.label + ': ' + fmt(s.score) + (s.note ? ' — ' + s.note : '');
        });
      });
    }
    function focusSentence(s, sticky) {
      clearHl();
      var first = null;
      (s.evidence || []).forEach(function (e) {
        left.segs.forEach(function (p) { if (inside(p, e)) { p.el.classList.add('fp-hl'); if (!first) first = p.el; } });
      });
      if (sticky) {
        info.textContent = '';
        var m = support[+pick.value];
        info.appendChild(el('b', null, m.label + ' ' + fmt(s.score)));
        info.appendChild(el('span', null, ' ' + (s.note || '')));
        if (first && first.scrollIntoView) first.scrollIntoView({ block: 'nearest' });
      }
    }
    var sticky = null;
    right.segs.forEach(function (p) {
      p.el.addEventListener('mouseenter', function () { if (p.support) focusSentence(p.support, false); });
      p.el.addEventListener('mouseleave', function () { if (sticky) focusSentence(sticky, false); else clearHl(); });
      p.el.addEventListener('click', function () { if (p.support) { sticky = p.support; focusSentence(p.support, true); } });
    });
    if (pick) pick.addEventListener('change', function () { sticky = null; info.textContent = ''; applySupport(); });
    applySupport();
    // Tables with `marks` mark their rows' spans with the row's score (DAE arcs on their words):
    // each word keeps its lowest score, flagged below the threshold; the table's lowest in bold.
    (d.sections || []).forEach(function (sec) {
      sec.blocks.forEach(function (b) {
        if (!b.marks || !b.rows) return;
        var m = b.marks, min = Infinity;
        b.rows.forEach(function (row) { var v = row.cells[m.score]; if (typeof v === 'number' && v < min) min = v; });
        b.rows.forEach(function (row) {
          var v = row.cells[m.score];
          if (typeof v !== 'number') return;
          var note = m.label + ': ' + row.cells.map(function (c, k) { return b.head[k] + ' ' + (typeof c === 'number' ? fmt(c) : c); }).join(' · ');
          (row.hl || []).forEach(function (h) {
            (h[0] === 0 ? left : right).segs.forEach(function (p) {
              if (!inside(p, [h[1], h[2]])) return;
              var prev = p.el.dataset.mark === undefined ? Infinity : +p.el.dataset.mark;
              if (v >= prev) return;
              p.el.dataset.mark = String(v);
              p.el.classList.add('fp-mark');
              p.el.classList.toggle('fp-mark-low', v < m.threshold);
              p.el.classList.toggle('fp-mark-lowest', v === min);
              p.el.title = note;
            });
          });
        });
      });
    });

    // A clicked table row highlights its spans on the texts.
    var hlRow = null;
    function highlight(hl, tr) {
      [left, right].forEach(function (side) { side.segs.forEach(function (p) { p.el.classList.remove('fp-qhl'); }); });
      if (hlRow) hlRow.classList.remove('fp-rowsel');
      if (hlRow === tr) { hlRow = null; return; }
      hlRow = tr; tr.classList.add('fp-rowsel');
      var first = null;
      hl.forEach(function (h) {
        (h[0] === 0 ? left : right).segs.forEach(function (p) {
          if (inside(p, [h[1], h[2]])) { p.el.classList.add('fp-qhl'); if (!first) first = p.el; }
        });
      });
      if (first && first.scrollIntoView) first.scrollIntoView({ block: 'nearest' });
    }
    // Per-metric sections.
    (d.sections || []).forEach(function (sec) {
      var box = el('section', 'fp-metric');
      box.dataset.metric = sec.metric;
      box.appendChild(el('h3', null, sec.title));
      sec.blocks.forEach(function (b) { box.appendChild(block(b, highlight)); });
      view.appendChild(box);
    });
    // Every null with its reason, every warning and error.
    var notes = el('section', 'fp-metric fp-notes');
    notes.appendChild(el('h3', null, 'Nulls, warnings and errors'));
    var items = [];
    (d.nulls || []).forEach(function (n) { items.push(['null', n[0], n[1]]); });
    (d.warnings || []).forEach(function (w) { items.push(['warning', w[0], w[1]]); });
    (d.errors || []).forEach(function (w) { items.push(['error', w[0], w[1]]); });
    (d.problems || []).forEach(function (w) { items.push(['report', '', w]); });
    if (!items.length) notes.appendChild(el('p', 'fp-muted', 'None.'));
    else notes.appendChild(block({ t: 'table', head: ['kind', 'column / metric', 'reason'], rows: items }));
    view.appendChild(notes);
    window.scrollTo(0, 0);
  }

  function cell(v) {
    var td = el('td');
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      td.textContent = typeof v.v === 'number' ? fmt(v.v) : (v.v === null || v.v === undefined ? '–' : String(v.v));
      if (typeof v.v === 'number') td.dataset.value = String(v.v);
      if (v.cls) td.className = 'fp-' + v.cls;
      if (v.title) td.title = v.title;
    } else if (typeof v === 'number') {
      td.textContent = fmt(v); td.dataset.value = String(v); td.className = 'fp-num';
    } else {
      td.textContent = v === null || v === undefined ? '–' : String(v);
    }
    return td;
  }
  function block(b, highlight) {
    if (b.t === 'p') return el('p', b.cls ? 'fp-' + b.cls : null, b.text);
    if (b.t === 'kv') {
      var kv = el('table', 'fp-kv');
      if (b.caption) kv.appendChild(el('caption', null, b.caption));
      b.items.forEach(function (it) { var r = el('tr'); r.appendChild(el('th', null, it[0])); r.appendChild(cell(it[1])); kv.appendChild(r); });
      return kv;
    }
    if (b.t === 'table') {
      var wrap = el('div', 'fp-tablewrap');
      var t = el('table', 'fp-table');
      if (b.caption) t.appendChild(el('caption', null, b.caption));
      var tr = el('tr');
      b.head.forEach(function (hc) { tr.appendChild(el('th', null, hc)); });
      var th = el('thead'); th.appendChild(tr); t.appendChild(th);
      var tb = el('tbody');
      b.rows.forEach(function (row) {
        var r = el('tr');
        var cells = Array.isArray(row) ? row : row.cells;
        cells.forEach(function (v, k) {
          var td = r.appendChild(cell(v));
          if (b.low && k === b.low[0] && typeof v === 'number' && v < b.low[1]) td.classList.add('fp-low');
        });
        if (!Array.isArray(row) && row.hl && row.hl.length && highlight) {
          r.classList.add('fp-clickable');
          r.addEventListener('click', function () { highlight(row.hl, r); });
        }
        tb.appendChild(r);
      });
      t.appendChild(tb);
      wrap.appendChild(t);
      return wrap;
    }
    return el('pre', null, JSON.stringify(b, null, 1));
  }

  function showList() {
    current = -1;
    $('fp-view').hidden = true;
    $('fp-listview').hidden = false;
    draw(true);
  }
  function step(k) {
    var order = state.order.length ? state.order : rows.map(function (_, i) { return i; });
    var pos = order.indexOf(current);
    var to = pos < 0 ? order[0] : order[Math.min(order.length - 1, Math.max(0, pos + k))];
    if (to !== undefined) location.hash = '#row=' + (to + 1);
  }
  function route() {
    var m = /^#row=(\d+)$/.exec(location.hash);
    if (m && +m[1] >= 1 && +m[1] <= rows.length) showRow(+m[1] - 1); else showList();
  }
  window.addEventListener('hashchange', route);
  document.addEventListener('keydown', function (e) {
    var t = e.target && e.target.tagName;
    if (t === 'INPUT' || t === 'SELECT' || t === 'TEXTAREA' || e.altKey || e.ctrlKey || e.metaKey) return;
    if (current >= 0) {
      if (e.key === 'j' || e.key === 'n' || e.key === 'ArrowRight') { step(1); e.preventDefault(); }
      else if (e.key === 'k' || e.key === 'p' || e.key === 'ArrowLeft') { step(-1); e.preventDefault(); }
      else if (e.key === 'Escape') { location.hash = '#list'; e.preventDefault(); }
    } else if (e.key === 'Enter' && state.order.length && t !== 'A' && t !== 'BUTTON') {
      location.hash = '#row=' + (state.order[0] + 1);
    }
  });
  apply();
  route();
  document.body.dataset.ready = '1';
  if (window.performance && performance.mark) performance.mark('factpico-ready');
})();
