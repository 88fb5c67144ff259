/* tools/export_svg.c - one self-contained flame graph SVG.
 *
 * Laid out like Brendan Gregg's flamegraph.pl: the root at the bottom, each
 * frame as wide as its inclusive value, children sorted by name, one
 * <g><title/><rect/><text/></g> per frame, so any SVG viewer shows it; a
 * small inline script adds click-to-zoom (frames above the clicked one
 * widen to the full width, its ancestors stay), "Reset Zoom", and "Search"
 * (a regular expression; matching frames turn purple and the matched share
 * of the total is shown).  Frames narrower than --min-width (a fraction of
 * the total, default EXPORT_SVG_MIN_WIDTH = 0.05%) are pruned, with their
 * subtrees: that bounds the frames to 1/min-width per level whatever the
 * profile's size.  Widths are the primary time by default (--value samples:
 * sample counts).
 * Thread-safe: yes.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/export.h"

struct sv_node {
	const struct hp_tnode *n;
	int32_t parent;     /* index, -1 at the top level */
	int32_t depth;      /* 0 = children of the root */
	double incl;        /* inclusive value */
	int32_t first, next;/* kept children list */
	int kept;
	double x;           /* left edge, in value units */
};

struct svg {
	enum export_value v;
	struct sv_node *a;
	size_t n, cap;
	int32_t *stack;     /* index per depth while walking */
	size_t scap;
};

static int svg_pre(struct hp_tnode *n, struct hp_tnode **path, int depth, void *arg)
{
	struct svg *s = arg;
	(void)path;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4096;
		struct sv_node *a = realloc(s->a, cap * sizeof(*a));
		if (!a)
			return -ENOMEM;
		s->a = a;
		s->cap = cap;
	}
	if ((size_t)depth > s->scap) {
		size_t cap = s->scap ? s->scap * 2 : 128;
		int32_t *st = realloc(s->stack, cap * sizeof(*st));
		if (!st)
			return -ENOMEM;
		s->stack = st;
		s->scap = cap;
	}
	struct sv_node *e = &s->a[s->n];
	e->n = n;
	e->depth = depth - 1;
	e->parent = depth > 1 ? s->stack[depth - 2] : -1;
	e->incl = s->v == EXPORT_V_SAMPLES ? n->samples : n->total;
	e->first = e->next = -1;
	e->kept = 0;
	e->x = 0;
	s->stack[depth - 1] = (int32_t)s->n++;
	return 0;
}

static int svg_post(struct hp_tnode *n, struct hp_tnode **path, int depth, void *arg)
{
	struct svg *s = arg;
	(void)n;
	(void)path;
	/* samples: inclusive = own + children's (time keeps the model's total) */
	if (s->v == EXPORT_V_SAMPLES) {
		struct sv_node *e = &s->a[s->stack[depth - 1]];
		if (e->parent >= 0)
			s->a[e->parent].incl += e->incl;
	}
	return 0;
}

static int by_name(const void *pa, const void *pb, void *arg)
{
	const struct sv_node *base = arg;
	const struct sv_node *a = &base[*(const int32_t *)pa];
	const struct sv_node *b = &base[*(const int32_t *)pb];
	int c = strcmp(export__name(a->n), export__name(b->n));
	return c ? c : (*(const int32_t *)pa - *(const int32_t *)pb);
}

static void color(const char *name, const struct hp_tnode *n, char *buf, size_t len)
{
	uint64_t h = export__hash(name, strlen(name), 0);
	double v1 = (double)(h & 0xffff) / 65535.0, v2 = (double)((h >> 16) & 0xffff) / 65535.0,
	       v3 = (double)((h >> 32) & 0xffff) / 65535.0;
	if (n->fn && n->fn->is_measurement)
		snprintf(buf, len, "rgb(%d,%d,%d)", 160 + (int)(40 * v1), 160 + (int)(40 * v1),
			 160 + (int)(40 * v1));
	else if (n->fn && n->fn->is_region)
		snprintf(buf, len, "rgb(%d,%d,%d)", (int)(50 + 60 * v1), 190 + (int)(55 * v2),
			 (int)(50 + 60 * v3));
	else if (n->flags & HP_T_INLINED)
		snprintf(buf, len, "rgb(%d,%d,%d)", 80 + (int)(60 * v1), 165 + (int)(60 * v2),
			 205 + (int)(50 * v3));
	else
		snprintf(buf, len, "rgb(%d,%d,%d)", 205 + (int)(50 * v3), (int)(230 * v1),
			 (int)(55 * v2));
}

/* The label that fits `w` pixels at 12px Verdana (0.59 em per character). */
static void label(FILE *out, const char *name, double w)
{
	size_t fit = (size_t)(w / (12 * 0.59));
	size_t len = strlen(name);
	if (fit < 3)
		return;
	if (len <= fit) {
		export__xml_str(out, name);
		return;
	}
	char buf[512];
	size_t k = fit - 2 < sizeof(buf) - 3 ? fit - 2 : sizeof(buf) - 3;
	/* do not cut a UTF-8 sequence */
	while (k > 0 && ((unsigned char)name[k] & 0xc0) == 0x80)
		k--;
	memcpy(buf, name, k);
	memcpy(buf + k, "..", 3);
	export__xml_str(out, buf);
}

static const char svg_script[] =
	"<script type=\"text/ecmascript\"><![CDATA[\n"
	"'use strict';\n"
	"var W,PAD=10,FW=0.59*12,frames=[],details,matched,unzoom,sterm=null;\n"
	"function init(){var svg=document.documentElement;W=+svg.getAttribute('width');"
	"details=document.getElementById('details').firstChild;"
	"matched=document.getElementById('matched');unzoom=document.getElementById('unzoom');"
	"var gs=document.getElementsByClassName('f');"
	"for(var i=0;i<gs.length;i++){var g=gs[i],r=g.querySelector('rect');"
	"var f={g:g,r:r,t:g.querySelector('text'),x:+r.getAttribute('x'),w:+r.getAttribute('width'),"
	"y:+r.getAttribute('y'),name:g.getAttribute('data-n'),fill:r.getAttribute('fill')};"
	"g.__f=f;frames.push(f);"
	"g.addEventListener('click',function(e){zoom(this.__f);e.stopPropagation();});"
	"g.addEventListener('mouseover',function(){details.nodeValue=this.querySelector('title')"
	".textContent;});"
	"g.addEventListener('mouseout',function(){details.nodeValue=' ';});}"
	"unzoom.addEventListener('click',reset);"
	"document.getElementById('search').addEventListener('click',function(){"
	"if(sterm!==null){clearSearch();return;}"
	"var t=prompt('Search (regular expression)','');if(t)search(t);});"
	"window.addEventListener('keydown',function(e){if((e.ctrlKey||e.metaKey)&&e.key==='f'){"
	"e.preventDefault();var t=prompt('Search (regular expression)','');if(t)search(t);}"
	"if(e.key==='Escape'){reset();clearSearch();}});}\n"
	"function fit(f,w){var n=Math.floor(w/FW);if(n<3){f.t.textContent='';return;}"
	"f.t.textContent=f.name.length<=n?f.name:f.name.substr(0,n-2)+'..';}\n"
	"function place(f,x,w){f.r.setAttribute('x',x);f.r.setAttribute('width',w);"
	"f.t.setAttribute('x',x+3);fit(f,w);f.g.style.display='';}\n"
	"function zoom(z){var s=(W-2*PAD)/z.w;unzoom.style.opacity=1;"
	"for(var i=0;i<frames.length;i++){var f=frames[i];"
	"if(f.y>=z.y){if(f.x<=z.x+1e-6&&f.x+f.w>=z.x+z.w-1e-6)place(f,PAD,W-2*PAD);"
	"else f.g.style.display='none';}"
	"else if(f.x>=z.x-1e-6&&f.x+f.w<=z.x+z.w+1e-6){var w=f.w*s;"
	"if(w<0.5)f.g.style.display='none';else place(f,PAD+(f.x-z.x)*s,w);}"
	"else f.g.style.display='none';}}\n"
	"function reset(){unzoom.style.opacity=0;for(var i=0;i<frames.length;i++)"
	"place(frames[i],frames[i].x,frames[i].w);}\n"
	"function clearSearch(){sterm=null;matched.textContent='';"
	"for(var i=0;i<frames.length;i++)frames[i].r.setAttribute('fill',frames[i].fill);}\n"
	"function search(t){var re;try{re=new RegExp(t);}catch(e){alert('bad expression: '+e);"
	"return;}sterm=t;var iv=[];for(var i=0;i<frames.length;i++){var f=frames[i];"
	"if(re.test(f.name)){f.r.setAttribute('fill','rgb(230,0,230)');iv.push([f.x,f.x+f.w]);}"
	"else f.r.setAttribute('fill',f.fill);}"
	"iv.sort(function(a,b){return a[0]-b[0];});var tot=0,end=-1;"
	"for(var j=0;j<iv.length;j++){var a=Math.max(iv[j][0],end);if(iv[j][1]>a)tot+=iv[j][1]-a;"
	"if(iv[j][1]>end)end=iv[j][1];}"
	"matched.textContent='Matched: '+(100*tot/(W-2*PAD)).toFixed(1)+'%';}\n"
	"]]></script>\n";

int export__svg(struct hp_model *m, const struct export_opts *o, FILE *out,
		char *err, size_t errlen)
{
	struct export_tree t;
	struct svg s = {.v = o->value};
	int rc;

	if (s.v == EXPORT_V_DEFAULT)
		s.v = EXPORT_V_TIME;
	if (s.v == EXPORT_V_CALLS) {
		snprintf(err, errlen, "svg: widths must add up; use --value time or samples");
		return -EINVAL;
	}
	rc = export__select(m, o->rank, o->thread, &t, err, errlen);
	if (rc < 0)
		return rc;
	rc = export__walk(t.root, svg_pre, svg_post, &s);
	if (rc < 0) {
		snprintf(err, errlen, "out of memory laying out the flame graph");
		goto out;
	}

	double total = 0;
	for (size_t i = 0; i < s.n; i++)
		if (s.a[i].parent < 0)
			total += s.a[i].incl > 0 ? s.a[i].incl : 0;
	if (s.v != EXPORT_V_SAMPLES && t.root->total > total)
		total = t.root->total;
	int width = o->width > 100 ? o->width : EXPORT_SVG_WIDTH;
	double minv = total * (o->min_width > 0 ? o->min_width : 0);
	double pxw = width - 20.0; /* drawable width */

	/* Keep frames at least minv wide whose parent is kept; link children. */
	int32_t *last = NULL;
	size_t nkept = 0;
	int maxdepth = 0;
	int32_t top = -1, toplast = -1;
	last = malloc((s.n + 1) * sizeof(*last));
	if (!last) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < s.n; i++) {
		struct sv_node *e = &s.a[i];
		last[i] = -1;
		if (e->incl <= 0 || e->incl < minv || (e->parent >= 0 && !s.a[e->parent].kept))
			continue;
		e->kept = 1;
		nkept++;
		if (e->depth > maxdepth)
			maxdepth = e->depth;
		if (e->parent < 0) {
			if (toplast < 0)
				top = (int32_t)i;
			else
				s.a[toplast].next = (int32_t)i;
			toplast = (int32_t)i;
		} else {
			struct sv_node *p = &s.a[e->parent];
			if (last[e->parent] < 0)
				p->first = (int32_t)i;
			else
				s.a[last[e->parent]].next = (int32_t)i;
			last[e->parent] = (int32_t)i;
		}
	}
	free(last);

	/* Sort each sibling list by name and place children left to right,
	 * scaled down when they add up to more than the parent (compensated
	 * measured times can). Parents come before children in s.a. */
	int32_t *tmp = malloc((s.n + 1) * sizeof(*tmp));
	if (!tmp) {
		rc = -ENOMEM;
		goto out;
	}
	for (int64_t pi = -1; pi < (int64_t)s.n; pi++) {
		int32_t first = pi < 0 ? top : s.a[pi].first;
		if (pi >= 0 && !s.a[pi].kept)
			continue;
		size_t k = 0;
		double sum = 0;
		for (int32_t c = first; c >= 0; c = s.a[c].next) {
			tmp[k++] = c;
			sum += s.a[c].incl;
		}
		if (!k)
			continue;
		qsort_r(tmp, k, sizeof(*tmp), by_name, s.a);
		double room = pi < 0 ? total : s.a[pi].incl;
		double scale = sum > room && sum > 0 ? room / sum : 1.0;
		double x = pi < 0 ? 0 : s.a[pi].x;
		for (size_t j = 0; j < k; j++) {
			s.a[tmp[j]].x = x;
			s.a[tmp[j]].incl *= scale;
			x += s.a[tmp[j]].incl;
		}
	}
	free(tmp);

	const int fh = 16, top_pad = 50, bottom_pad = 34;
	int height = (maxdepth + 2) * fh + top_pad + bottom_pad;
	const char *title = o->title ? o->title : m->program ? m->program : "hyprof";
	char sub[512];
	snprintf(sub, sizeof(sub), "hyprof %s profile, source %s, %s: %.6g %s, %zu of %zu frames shown "
		 "(pruned below %.3g%%)", m->mode ? m->mode : "?", m->source ? m->source : "?",
		 s.v == EXPORT_V_SAMPLES ? "samples" : "time", total,
		 s.v == EXPORT_V_SAMPLES ? "samples" : "s", nkept, s.n,
		 (o->min_width > 0 ? o->min_width : 0) * 100);

	fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"onload=\"init(evt)\" xmlns=\"http://www.w3.org/2000/svg\">\n",
		width, height, width, height);
	fputs("<style type=\"text/css\">text{font-family:Verdana,sans-serif;font-size:12px;"
	      "fill:rgb(0,0,0)}#title{text-anchor:middle;font-size:17px}"
	      "#sub{text-anchor:middle;font-size:11px;fill:rgb(90,90,90)}"
	      ".f:hover rect{stroke:black;stroke-width:0.5;cursor:pointer}"
	      "#unzoom,#search{cursor:pointer}</style>\n", out);
	fputs(svg_script, out);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"rgb(248,248,244)\"/>\n",
		width, height);
	fprintf(out, "<text id=\"title\" x=\"%d\" y=\"22\">", width / 2);
	export__xml_str(out, title);
	fprintf(out, "</text>\n<text id=\"sub\" x=\"%d\" y=\"38\">", width / 2);
	export__xml_str(out, sub);
	fputs("</text>\n", out);
	fprintf(out, "<text id=\"unzoom\" x=\"10\" y=\"22\" style=\"opacity:0\">Reset Zoom</text>\n"
		"<text id=\"search\" x=\"%d\" y=\"22\" text-anchor=\"end\">Search</text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"></text>\n"
		"<text id=\"details\" x=\"10\" y=\"%d\"> </text>\n",
		width - 10, width - 10, height - 10, height - 10);

	for (size_t i = 0; i < s.n; i++) {
		struct sv_node *e = &s.a[i];
		if (!e->kept)
			continue;
		const char *name = export__name(e->n);
		double x = 10 + (total > 0 ? e->x / total * pxw : 0);
		double w = total > 0 ? e->incl / total * pxw : 0;
		double y = height - bottom_pad - (e->depth + 1) * fh;
		char fill[64];
		color(name, e->n, fill, sizeof(fill));
		fputs("<g class=\"f\" data-n=\"", out);
		export__xml_str(out, name);
		fputs("\"><title>", out);
		export__xml_str(out, name);
		if (e->n->flags & HP_T_INLINED)
			fputs(" [inlined]", out);
		if (s.v == EXPORT_V_SAMPLES)
			fprintf(out, " (%.0f samples, %.2f%%", e->incl, 100 * e->incl / total);
		else
			fprintf(out, " (%.6g s, %.2f%%", e->incl, 100 * e->incl / total);
		if (e->n->calls >= 0)
			fprintf(out, ", %lld calls", (long long)e->n->calls);
		fprintf(out, ")</title><rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%d\" "
			"fill=\"%s\" rx=\"2\" ry=\"2\"/><text x=\"%.2f\" y=\"%.1f\">",
			x, y, w, fh - 1, fill, x + 3, y + 11.5);
		label(out, name, w);
		fputs("</text></g>\n", out);
	}
	fputs("</svg>\n", out);
out:
	free(s.a);
	free(s.stack);
	export__tree_free(&t);
	return rc;
}
