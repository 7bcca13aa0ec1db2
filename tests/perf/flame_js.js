// The flame graph's script (cli/flame_svg.c) run under node against a
// small stand-in for the SVG DOM: zoom, search and reset behave.
// Usage: node flame_js.js FRAMES.json SCRIPT.js REGEX WANT_PERCENT WIDTH
// FRAMES.json: [{attrs, title, rect, text}] per <g class="f">, in order.
// Exit 0, or 1 with the reason.
'use strict';
const fs = require('fs');
const [framesPath, scriptPath, regex, wantPct, svgWidth] =
  process.argv.slice(2);
const W = +svgWidth;
const frames = JSON.parse(fs.readFileSync(framesPath, 'utf8'));

function el(attrs) {
  return {
    a: Object.assign({}, attrs), style: {}, textContent: '',
    getAttribute(k) { return this.a[k]; },
    setAttribute(k, v) { this.a[k] = String(v); },
    addEventListener(ev, f) { this['on' + ev] = f; },
  };
}
const ids = { reset: el({}), search: el({}), matched: el({}),
              details: el({}) };
const G = frames.map((f) => {
  const g = el(f.attrs), t = el({}), r = el(f.rect), x = el({});
  t.textContent = f.title;
  x.textContent = f.text;
  g.querySelector = (s) => (s === 'title' ? t : s === 'rect' ? r : x);
  return g;
});
let onKey = null;
global.document = { documentElement: el({ width: svgWidth }),
                    querySelectorAll: () => G,
                    getElementById: (id) => ids[id] };
global.window = { addEventListener(ev, f) { onKey = f; } };
global.prompt = () => regex;
global.alert = (m) => { throw new Error(m); };

function fail(msg) { console.log('FAIL: ' + msg); process.exit(1); }
const width = (g) => +g.querySelector('rect').getAttribute('width');
const shown = (g) => g.style.display !== 'none';
const num = (g, k) => +g.getAttribute(k);

eval(fs.readFileSync(scriptPath, 'utf8'));  // runs reset()

// every frame as drawn, labels fitted
G.forEach((g, i) => {
  if (Math.abs(width(g) - +frames[i].rect.width) > 1e-3)
    fail('reset: frame ' + i + ' width ' + width(g));
  const label = g.querySelector('text').textContent;
  if (label !== frames[i].text)
    fail('label of frame ' + i + ': ' + label + ', drawn ' + frames[i].text);
});
// zoom into the widest frame at depth 3 or more
const target = G.filter((g) => num(g, 'data-d') >= 3)
  .sort((a, b) => num(b, 'data-n') - num(a, 'data-n'))[0];
if (!target) fail('no frame at depth 3');
target.onclick();
const lo = num(target, 'data-lo'), n = num(target, 'data-n');
const d = num(target, 'data-d');
if (Math.abs(width(target) - (W - 20)) > 1e-3)
  fail('zoomed frame not full width: ' + width(target));
if (ids.reset.style.display !== '') fail('Reset Zoom not shown');
G.forEach((g) => {
  const glo = num(g, 'data-lo'), gn = num(g, 'data-n');
  const gd = num(g, 'data-d');
  const inside = gd >= d && glo >= lo && glo + gn <= lo + n;
  const above = gd < d && glo <= lo && lo + n <= glo + gn;
  if (!inside && !above && shown(g)) fail('frame outside the zoom shown');
  if (inside && gn * (W - 20) / n >= 0.1 &&
      Math.abs(width(g) - gn * (W - 20) / n) > 1e-3)
    fail('frame inside the zoom not scaled: ' + width(g));
});
// search
ids.search.onclick();
if (ids.matched.textContent !== 'Matched: ' + wantPct + '%')
  fail('search ' + regex + ': "' + ids.matched.textContent + '", want ' +
       wantPct + '%');
const marked = G.filter((g) => g.querySelector('rect').getAttribute('fill') ===
                         'rgb(225,40,225)').length;
if (!marked) fail('search marked no frame');
// Escape: all back
onKey({ key: 'Escape' });
G.forEach((g, i) => {
  if (!shown(g) || Math.abs(width(g) - +frames[i].rect.width) > 1e-3)
    fail('after Escape frame ' + i + ' not as drawn');
  if (g.querySelector('rect').getAttribute('fill') !== frames[i].rect.fill)
    fail('after Escape frame ' + i + ' still marked');
});
console.log('flame script: zoom into ' + target.querySelector('title')
  .textContent + ', search ' + regex + ' matched ' + wantPct +
  '%, reset: ok');
