/* etmkit CLI: flame graph SVG from folded stacks (cli/flame_svg.h). The
 * folded lines become a tree of frames (equal names under one parent
 * merge); each frame is drawn as a rectangle whose width is its count
 * (its own and its descendants') times the pixels per unit, with its
 * position, count and depth as attributes the script uses to zoom. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/common.h"
#include "flame_svg.h"
#include "text_out.h"

#define FRAME_H 16       /* pixels per frame row */
#define PAD 10           /* left and right margin */
#define TOP 56           /* title and controls */
#define BOTTOM 30        /* details line */
#define FONT 12
#define MIN_PX 0.1       /* narrower frames are not drawn */
#define CHAR_W 7.2       /* a character's width (monospace, FONT px) */

struct fnode {
	const char *name;    /* into the text (not NUL-ended): name, len */
	size_t len;
	size_t parent;
	size_t child, next;  /* first child, next sibling (0: none) */
	uint64_t count;      /* with the descendants */
};

struct flame {
	struct fnode *nodes;
	size_t n, cap;
	size_t *slots;       /* nodes by (parent, name), open addressing:
				node index, 0 free (the root is no child) */
	size_t nslots;       /* a power of two, above twice n */
	FILE *f;
	double scale;        /* pixels per unit */
	unsigned depth;      /* rows */
	uint64_t total;
	const char *unit;
};

static size_t slot_of(size_t parent, const char *name, size_t len,
		      size_t nslots)
{
	uint64_t h = 1469598103934665603ull ^ parent;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 1099511628211ull;
	return (size_t)(h ^ h >> 29) & (nslots - 1);
}

/* Twice the slots, every node put again: 0, or -1 out of memory. */
static int grow_slots(struct flame *fl)
{
	size_t ns = fl->nslots ? fl->nslots * 2 : 1024;
	size_t *sl = calloc(ns, sizeof(*sl));

	if (!sl)
		return -1;
	for (size_t k = 1; k < fl->n; k++) {
		size_t i = slot_of(fl->nodes[k].parent, fl->nodes[k].name,
				   fl->nodes[k].len, ns);

		while (sl[i])
			i = (i + 1) & (ns - 1);
		sl[i] = k;
	}
	free(fl->slots);
	fl->slots = sl;
	fl->nslots = ns;
	return 0;
}

/* The child @name (@len bytes) of node @parent, made when new (a look-up
 * in the slots, however many children a frame has); 0 out of memory. */
static size_t node_add(struct flame *fl, size_t parent, const char *name,
		       size_t len)
{
	struct fnode *p;
	size_t i;

	if ((fl->n + 1) * 2 > fl->nslots && grow_slots(fl) < 0)
		return 0;
	for (i = slot_of(parent, name, len, fl->nslots); fl->slots[i];
	     i = (i + 1) & (fl->nslots - 1)) {
		const struct fnode *c = &fl->nodes[fl->slots[i]];

		if (c->parent == parent && c->len == len &&
		    !memcmp(c->name, name, len))
			return fl->slots[i];
	}
	if (fl->n == fl->cap) {
		size_t cap = fl->cap * 2;
		struct fnode *nn = realloc(fl->nodes, cap * sizeof(*nn));

		if (!nn)
			return 0;
		fl->nodes = nn;
		fl->cap = cap;
	}
	p = &fl->nodes[fl->n];
	memset(p, 0, sizeof(*p));
	p->name = name;
	p->len = len;
	p->parent = parent;
	p->next = fl->nodes[parent].child;
	fl->nodes[parent].child = fl->n;
	fl->slots[i] = fl->n;
	return fl->n++;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* One folded line @s (@len bytes, no newline). */
static int add_line(struct flame *fl, const char *s, size_t len)
{
	const char *sp = NULL;
	size_t path[4096], d = 0, at = 0;
	uint64_t count = 0;

	for (size_t i = len; i-- > 0;)
		if (s[i] == ' ') {
			sp = s + i;
			break;
		}
	if (!sp || sp + 1 == s + len)
		return -etmkit_err_invalid;
	for (const char *c = sp + 1; c < s + len; c++) {
		if (*c < '0' || *c > '9')
			return -etmkit_err_invalid;
		count = sat_add(count > UINT64_MAX / 10 ? UINT64_MAX
							: count * 10,
				(uint64_t)(*c - '0'));
	}
	path[d++] = 0;
	while (s + at < sp && d < sizeof(path) / sizeof(path[0])) {
		const char *e = memchr(s + at, ';', (size_t)(sp - s) - at);
		size_t l = e ? (size_t)(e - s) - at : (size_t)(sp - s) - at;
		size_t k = node_add(fl, path[d - 1], s + at, l);

		if (!k)
			return -etmkit_err_nomem;
		path[d++] = k;
		at += l + 1;
	}
	for (size_t i = 0; i < d; i++)
		fl->nodes[path[i]].count = sat_add(fl->nodes[path[i]].count,
						   count);
	if (d - 1 > fl->depth)
		fl->depth = (unsigned)(d - 1);
	return 0;
}

/* A warm colour from the name, grey for the markers. */
static void colour(const struct fnode *nd, unsigned *r, unsigned *g,
		   unsigned *b)
{
	uint32_t h = 2166136261u;

	if (nd->len && nd->name[0] == '[') {
		*r = *g = *b = 190;
		return;
	}
	for (size_t i = 0; i < nd->len; i++)
		h = (h ^ (unsigned char)nd->name[i]) * 16777619u;
	*r = 205 + h % 50;
	*g = 80 + (h >> 8) % 130;
	*b = 30 + (h >> 16) % 50;
}

/* Children in name order (bytewise, then shorter first). */
static int by_name(const void *a, const void *b)
{
	const struct fnode *x = *(const struct fnode *const *)a;
	const struct fnode *y = *(const struct fnode *const *)b;
	size_t l = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, l);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* The name as far as it fits in @w pixels (as the script's label()
 * does after a zoom): "" under 3 characters, else cut with "..". */
static void label(FILE *f, const struct fnode *nd, double w)
{
	double c = (w - 6) / CHAR_W;
	size_t fit = c > 0 ? (size_t)c : 0;

	if (fit < 3)
		return;
	if (nd->len <= fit) {
		cli_xml_text(f, nd->name, nd->len);
		return;
	}
	cli_xml_text(f, nd->name, cli_utf8_cut(nd->name, fit - 2));
	fputs("..", f);
}

/* Draw node @k at unit offset @lo, row @row (0: bottom), then its
 * children in name order. */
static int draw(struct flame *fl, size_t k, uint64_t lo, unsigned row)
{
	struct fnode *nd = &fl->nodes[k];
	double x = PAD + (double)lo * fl->scale;
	double w = (double)nd->count * fl->scale;
	unsigned y = TOP + (fl->depth - row) * FRAME_H, r, g, b;
	size_t nc = 0;
	const struct fnode **kids;
	uint64_t at = lo;
	int err = 0;

	if (w < MIN_PX)
		return 0;
	colour(nd, &r, &g, &b);
	fprintf(fl->f, "<g class=\"f\" data-lo=\"%" PRIu64 "\" data-n=\"%"
		PRIu64 "\" data-d=\"%u\"><title>", lo, nd->count, row);
	cli_xml_text(fl->f, nd->name, nd->len);
	fprintf(fl->f, " (%" PRIu64 " %s, %.2f%%)</title><rect x=\"%.4f\" "
		"y=\"%u\" width=\"%.4f\" height=\"%u\" fill=\"rgb(%u,%u,%u)\" "
		"rx=\"2\"/><text x=\"%.2f\" y=\"%u\">",
		nd->count, fl->unit, 100.0 * (double)nd->count /
		(double)(fl->total ? fl->total : 1), x, y, w, FRAME_H - 1,
		r, g, b, x + 3, y + FRAME_H - 4);
	label(fl->f, nd, w);
	fputs("</text></g>\n", fl->f);
	for (size_t c = nd->child; c; c = fl->nodes[c].next)
		nc++;
	if (!nc)
		return 0;
	kids = malloc(nc * sizeof(*kids));
	if (!kids)
		return -etmkit_err_nomem;
	nc = 0;
	for (size_t c = nd->child; c; c = fl->nodes[c].next)
		kids[nc++] = &fl->nodes[c];
	qsort(kids, nc, sizeof(*kids), by_name);
	for (size_t i = 0; i < nc && !err; i++) {
		err = draw(fl, (size_t)(kids[i] - fl->nodes), at, row + 1);
		at += kids[i]->count;
	}
	free(kids);
	return err;
}

/* The script: zoom on click, search, reset; labels fitted to widths.
 * Written for this file (no other tool's code). */
static const char script[] =
"<script type=\"text/ecmascript\"><![CDATA[\n"
"'use strict';\n"
"var W=+document.documentElement.getAttribute('width'),PAD=10,CH=7.2;\n"
"var G=[].slice.call(document.querySelectorAll('g.f')).map(function(g){\n"
"  var t=g.querySelector('title').textContent;\n"
"  return {g:g,r:g.querySelector('rect'),t:g.querySelector('text'),\n"
"    name:t.slice(0,t.lastIndexOf(' (')),lo:+g.getAttribute('data-lo'),\n"
"    n:+g.getAttribute('data-n'),d:+g.getAttribute('data-d'),\n"
"    fill:g.querySelector('rect').getAttribute('fill')};});\n"
"var TOTAL=G.length?G[0].n:1,zoomed=null,re=null;\n"
"function label(f,w){var c=Math.floor((w-6)/CH);\n"
"  f.t.textContent=c<3?'':(f.name.length<=c?f.name:\n"
"    f.name.slice(0,c-2)+'..');}\n"
"function show(lo,n,d){var sc=(W-2*PAD)/n;G.forEach(function(f){\n"
"  var vis,x,w;if(f.d<d){vis=f.lo<=lo&&lo+n<=f.lo+f.n;x=PAD;w=W-2*PAD;\n"
"    f.g.style.opacity=0.6;}\n"
"  else{vis=f.lo>=lo&&f.lo+f.n<=lo+n;x=PAD+(f.lo-lo)*sc;w=f.n*sc;\n"
"    f.g.style.opacity=1;if(w<0.1)vis=false;}\n"
"  f.g.style.display=vis?'':'none';if(!vis)return;\n"
"  f.r.setAttribute('x',x.toFixed(4));f.r.setAttribute('width',\n"
"    w.toFixed(4));f.t.setAttribute('x',(x+3).toFixed(2));label(f,w);});\n"
"  document.getElementById('reset').style.display=d>0||lo>0||n<TOTAL?\n"
"    '':'none';}\n"
"function zoom(f){zoomed=f;show(f.lo,f.n,f.d);}\n"
"function reset(){zoomed=null;show(0,TOTAL,0);}\n"
"function search(){var s=prompt('Search frames (regular expression)',\n"
"  re?re.source:'');if(s===null)return;if(s===''){unmark();return;}\n"
"  try{re=new RegExp(s);}catch(e){alert(e);return;}var iv=[];\n"
"  G.forEach(function(f){var m=re.test(f.name);f.r.setAttribute('fill',\n"
"    m?'rgb(225,40,225)':f.fill);if(m)iv.push([f.lo,f.lo+f.n]);});\n"
"  iv.sort(function(a,b){return a[0]-b[0];});var sum=0,end=-1;\n"
"  iv.forEach(function(v){if(v[0]>=end){sum+=v[1]-v[0];end=v[1];}\n"
"    else if(v[1]>end){sum+=v[1]-end;end=v[1];}});\n"
"  document.getElementById('matched').textContent='Matched: '+\n"
"    (100*sum/TOTAL).toFixed(2)+'%';}\n"
"function unmark(){re=null;G.forEach(function(f){f.r.setAttribute('fill',\n"
"  f.fill);});document.getElementById('matched').textContent='';}\n"
"G.forEach(function(f){f.g.addEventListener('click',function(){zoom(f);});\n"
"  f.g.addEventListener('mouseover',function(){\n"
"    document.getElementById('details').textContent=\n"
"      f.g.querySelector('title').textContent;});});\n"
"document.getElementById('reset').addEventListener('click',reset);\n"
"document.getElementById('search').addEventListener('click',search);\n"
"window.addEventListener('keydown',function(e){\n"
"  if((e.ctrlKey||e.metaKey)&&e.key==='f'){e.preventDefault();search();}\n"
"  else if(e.key==='Escape'){reset();unmark();}});\n"
"reset();\n"
"]]></script>\n";

static void head(struct flame *fl, const struct flame_options *o,
		 unsigned width, unsigned height)
{
	const char *title = o->title ? o->title : "Flame Graph";

	fprintf(fl->f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%u\" height=\"%u\" "
		"viewBox=\"0 0 %u %u\" xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style>text{font-family:monospace;font-size:%upx;fill:#000}"
		"g.f{cursor:pointer}g.f:hover rect{stroke:#000;"
		"stroke-width:0.5}#reset,#search{cursor:pointer}</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" "
		"fill=\"#f8f8f0\"/>\n<text x=\"%u\" y=\"24\" "
		"text-anchor=\"middle\" style=\"font-size:17px\">",
		width, height, width, height, FONT, width, height, width / 2);
	cli_xml_text(fl->f, title, strlen(title));
	fprintf(fl->f, "</text>\n<text id=\"reset\" x=\"%u\" y=\"24\" "
		"style=\"display:none\">Reset Zoom</text>\n"
		"<text id=\"search\" x=\"%u\" y=\"24\" text-anchor=\"end\">"
		"Search</text>\n<text id=\"matched\" x=\"%u\" y=\"%u\" "
		"text-anchor=\"end\"></text>\n<text id=\"details\" x=\"%u\" "
		"y=\"%u\"></text>\n", PAD, width - PAD, width - PAD,
		height - 10, PAD, height - 10);
}

int flame_svg_write(FILE *f, const char *text, size_t n,
		    const struct flame_options *o)
{
	struct flame fl;
	unsigned width = o->width ? o->width : 1200, height;
	size_t at = 0;
	int err = 0;

	memset(&fl, 0, sizeof(fl));
	fl.f = f;
	fl.unit = o->unit ? o->unit : "samples";
	fl.cap = 256;
	fl.nodes = calloc(fl.cap, sizeof(*fl.nodes));
	if (!fl.nodes)
		return -etmkit_err_nomem;
	fl.nodes[0].name = "all";
	fl.nodes[0].len = 3;
	fl.n = 1;
	while (at < n && !err) {
		const char *e = memchr(text + at, '\n', n - at);
		size_t l = e ? (size_t)(e - text) - at : n - at;

		if (l)
			err = add_line(&fl, text + at, l);
		at += l + 1;
	}
	if (!err) {
		fl.total = fl.nodes[0].count;
		fl.scale = fl.total ? (double)(width - 2 * PAD) /
				      (double)fl.total : 0;
		height = TOP + (fl.depth + 1) * FRAME_H + BOTTOM;
		head(&fl, o, width, height);
		if (fl.total)
			err = draw(&fl, 0, 0, 0);
		fputs(script, f);
		fputs("</svg>\n", f);
	}
	free(fl.nodes);
	free(fl.slots);
	if (!err && ferror(f))
		err = -etmkit_err_io;
	return err;
}
