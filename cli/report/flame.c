/*
 * flame.c - the flame graph of `profil report --html`: the call stacks
 * merged by function along each path into one tree (calltree.h; its root
 * is every sample, drawn at the bottom), written as compact JSON that the
 * page's script lays out, zooms and searches.  Invariant: the nodes go out in
 * preorder, so a node's parent comes before it and a subtree is one run
 * of indices; the script lays out and zooms in single passes over that.
 */
#include <stdlib.h>
#include <string.h>

#include "calltree.h"
#include "cli.h"
#include "json.h"
#include "profile/wall-view.h"
#include "report.h"
#include "share.h"

/*
 * Boxes narrower than 1/FLAME_PRUNE of the samples are left out: at a
 * page's width they are under a pixel, and without them the data is at
 * most FLAME_PRUNE boxes a level, whatever the number of functions.
 */
#define FLAME_PRUNE 1000

/* For sorting the children of a node: most samples first, then by name. */
static const struct stacks *sort_stacks;
static const struct calltree_node *sort_nodes;

static int
by_count(const void *a, const void *b)
{
	const struct calltree_node *x = &sort_nodes[*(const size_t *)a];
	const struct calltree_node *y = &sort_nodes[*(const size_t *)b];
	int c;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	c = strcmp(sort_stacks->funcs[x->func].function,
	    sort_stacks->funcs[y->func].function);
	return c ? c : (x->func > y->func) - (x->func < y->func);
}

static const char intro[] =
"<h2 id=\"flame-graph\">Flame graph</h2>\n"
"<p>The call stacks merged by function: each box is a function, the "
"functions it called above it, the root (every sample) at the bottom; "
"its width is its samples, with it anywhere on the stack. Click a box to "
"zoom into it, the bottom box or <i>Reset</i> to zoom out. "
"<span class=\"key\" style=\"background:#e8793a\"></span>program and "
"libraries, <span class=\"key\" style=\"background:#6fa8dc\"></span>kernel, "
"<span class=\"key\" style=\"background:#b9a3dc\"></span>off the CPU "
"(a wall profile; <i>on the CPU only</i> shows the CPU part), "
"<span class=\"key\" style=\"background:#a9a9a9\"></span>stack cut (the "
"unwinder stopped; the box says why; a box whose caller below was found by "
"frame pointer, not unwind tables, says so too), "
"<span class=\"key\" style=\"background:#d020e0\"></span>search match.</p>\n";

static const char tools[] =
"<div class=\"fg-tools\"><input id=\"flame-search\" type=\"search\" "
"placeholder=\"search functions: regex or text\" aria-label=\"search "
"functions (a regular expression, or plain text)\" size=\"36\">"
"<button id=\"flame-reset\" type=\"button\">Reset zoom</button>"
"<label hidden><input id=\"flame-cpu\" type=\"checkbox\"> on the CPU only"
"</label>"
"<span id=\"flame-match\" aria-live=\"polite\"></span></div>\n"
"<div class=\"flame\" id=\"flame\"><svg id=\"flame-svg\" "
"xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"flame "
"graph\"></svg><div class=\"fg-tip\" id=\"flame-tip\" hidden></div></div>\n";

/*
 * The page's script: lays the boxes out from the preorder data, draws the
 * ones at least half a pixel wide (a subtree narrower than that is
 * skipped whole), and redraws on zoom, search and resize.  Names reach
 * the page only through textContent and setAttribute, never as markup.
 */
static const char script[] =
"(function(){\n"
"var el=document.getElementById('flame-data');if(!el)return;\n"
"var d=JSON.parse(el.textContent),n=d.count.length,total=d.total,scale=d.scale||1,cnt=d.count;\n"
"var box=document.getElementById('flame'),svg=document.getElementById('flame-svg');\n"
"var tip=document.getElementById('flame-tip'),search=document.getElementById('flame-search');\n"
"var shown=document.getElementById('flame-match'),NS='http://www.w3.org/2000/svg',ROW=18;\n"
"var x0=new Float64Array(n),used=new Float64Array(n),depth=new Int32Array(n),end=new Int32Array(n);\n"
"var deepest=0,zoom=0,matches=null,i;\n"
"function lay(){used.fill(0);for(i=1;i<n;i++){var p=d.parent[i];depth[i]=depth[p]+1;x0[i]=x0[p]+used[p];\n"
" used[p]+=cnt[i];if(depth[i]>deepest)deepest=depth[i];}}lay();\n"
/* a wall profile: on-CPU counts beside, and a switch between the two */
"var cpuBox=document.getElementById('flame-cpu');\n"
"if(d.cpu&&cpuBox){cpuBox.parentNode.hidden=false;cpuBox.addEventListener('change',function(){\n"
" cnt=cpuBox.checked?d.cpu:d.count;total=cpuBox.checked?d.cputotal:d.total;zoom=0;lay();\n"
" if(search.value)find();else render();});}\n"
"for(i=n-1;i>=0;i--){if(end[i]<i)end[i]=i;if(i>0&&end[d.parent[i]]<end[i])end[d.parent[i]]=end[i];}\n"
"function fn(i){return d.func[i]<0?null:d.funcs[d.func[i]];}\n"
"function name(i){var f=fn(i);return f?f[0]:'all';}\n"
/*
 * the error of a set of boxes (disjoint), as cli/report/share.c has it:
 * the CPU samples' (Wilson's interval of samples of equal weight) for a
 * set with code in it, and each pool of time placed by looks by the
 * looks the set holds; in points, never past 0 or 100.  A box alone
 * has the tables' own figure, d.err.
 */
"var looksOf=[],L=d.looks||[];for(i=0;i+2<L.length;i+=3)(looksOf[L[i]]=looksOf[L[i]]||[]).push(L[i+1],L[i+2]);\n"
"function wil(k,n,s){var z=1.959964,p;if(!n)return 0;p=k/n;n/=s;\n"
" return z*Math.sqrt(p*(1-p)/n+z*z/(4*n*n))/(1+z*z/n);}\n"
"function errOf(set){var onCpu=!!d.cpu&&cnt===d.cpu,C=d.cpu?d.cputotal:total,c=0,a=0,code=false,m={},v=0,e,k,j;\n"
" if(set.length===1&&!onCpu&&d.err)return d.err[set[0]];\n"
" set.forEach(function(i){var f=fn(i),l=looksOf[i];c+=d.cpu?d.cpu[i]:cnt[i];a+=cnt[i];if(!f||!(f[2]&8))code=true;\n"
"  if(!onCpu&&l)for(j=0;j<l.length;j+=2)m[l[j]]=(m[l[j]]||0)+l[j+1];});\n"
" if(code&&C>0){e=C*wil(c,C,scale);v+=e*e;}\n"
" for(k in m){e=d.pools[2*k]*wil(m[k],d.pools[2*k+1],1);v+=e*e;}\n"
" if(!total)return 0;e=100*Math.sqrt(v)/total;k=100*a/total;return Math.min(e,k>50?k:100-k);}\n"
"function pct(k){return total?100*k/total:0;}\n"
"function colour(i){var f=fn(i),h=0,s,k;if(!f)return '#c8c8c8';\n"
" if(f[2]&8)return 'hsl(265,45%,'+(68+i%10)+'%)';\n"
" if(f[2]&2)return '#a9a9a9';if(f[2]&4)return '#d3d3d3';\n"
" for(s=f[0],k=0;k<s.length;k++)h=(h*31+s.charCodeAt(k))>>>0;\n"
" if(f[2]&1)return 'hsl('+(195+h%30)+',60%,'+(62+(h>>>8)%14)+'%)';\n"
" return 'hsl('+(h%50)+',85%,'+(56+(h>>>8)%14)+'%)';}\n"
"function fit(s,w){var c=Math.floor((w-6)/7);return c<2?'':s.length<=c?s:s.slice(0,c-1)+'\\u2026';}\n"
"function add(frag,i,x,w,dim){\n"
" var g=document.createElementNS(NS,'g'),r=document.createElementNS(NS,'rect'),y=(deepest-depth[i])*ROW;\n"
" g.setAttribute('class','fg-box'+(dim?' fg-dim':'')+(matches&&matches[i]?' fg-match':''));\n"
" g.setAttribute('data-i',i);g.setAttribute('data-name',name(i));g.setAttribute('data-count',cnt[i]);\n"
" r.setAttribute('x',x);r.setAttribute('y',y);r.setAttribute('width',w);r.setAttribute('height',ROW-1);\n"
" r.setAttribute('fill',colour(i));g.appendChild(r);\n"
" var t=fit(name(i),w);if(t){var e=document.createElementNS(NS,'text');\n"
"  e.setAttribute('x',x+3);e.setAttribute('y',y+ROW-5);e.textContent=t;g.appendChild(e);}\n"
" frag.appendChild(g);}\n"
"function render(){\n"
" var W=box.clientWidth||960,H=(deepest+1)*ROW,scale=cnt[zoom]?W/cnt[zoom]:0,lo=x0[zoom],frag=document.createDocumentFragment(),a;\n"
" svg.setAttribute('width',W);svg.setAttribute('height',H);svg.setAttribute('viewBox','0 0 '+W+' '+H);\n"
" for(a=zoom;a>=0;a=d.parent[a])add(frag,a,0,W,a!==zoom);\n"
" for(i=zoom+1;i<=end[zoom];i++){var w=cnt[i]*scale;\n"
"  if(w<0.5){i=end[i];continue;}add(frag,i,(x0[i]-lo)*scale,w,false);}\n"
" while(svg.firstChild)svg.removeChild(svg.firstChild);svg.appendChild(frag);}\n"
"function boxOf(e){var g=e.target.closest?e.target.closest('g.fg-box'):null;return g?+g.getAttribute('data-i'):-1;}\n"
"svg.addEventListener('click',function(e){var i=boxOf(e);if(i>=0){zoom=i;render();}});\n"
"svg.addEventListener('mousemove',function(e){var i=boxOf(e);if(i<0){tip.hidden=true;return;}\n"
" var f=fn(i),lines=[name(i),!f?'every sample':f[2]&2?'the unwinder stopped here':\n"
"  f[2]&8?'off the CPU':f[1]+(f[2]&1?' (kernel)':'')+(f[2]&16?'; its caller below found by frame pointer, not unwind tables':''),\n"
"  (d.cpu&&cnt!==d.cpu?(cnt[i]*d.secs).toFixed(3)+' s of wall time ('+d.cpu[i]+' CPU samples), ':cnt[i]+' samples, ')+pct(cnt[i]).toFixed(2)+'% \\u00b1 '+errOf([i]).toFixed(2)+' of all'];\n"
" while(tip.firstChild)tip.removeChild(tip.firstChild);\n"
" lines.forEach(function(s,k){var e=document.createElement(k?'div':'b');e.textContent=s;tip.appendChild(e);});\n"
" var r=box.getBoundingClientRect(),x=e.clientX-r.left+14;\n"
" tip.hidden=false;if(x+tip.offsetWidth>r.width)x=Math.max(0,e.clientX-r.left-14-tip.offsetWidth);\n"
" tip.style.left=x+'px';tip.style.top=(e.clientY-r.top+14)+'px';});\n"
"svg.addEventListener('mouseleave',function(){tip.hidden=true;});\n"
"document.getElementById('flame-reset').addEventListener('click',function(){zoom=0;render();});\n"
/* a sample counts once: only matches with no match below them on the stack add */
"function find(){var q=search.value,test,fm,under,sum=0,set=[];\n"
" if(!q){matches=null;shown.textContent='';shown.removeAttribute('data-samples');render();return;}\n"
" try{var re=new RegExp(q);test=function(s){return re.test(s);};}\n"
" catch(x){test=function(s){return s.indexOf(q)>=0;};}\n"
" fm=d.funcs.map(function(f){return test(f[0]);});matches=new Uint8Array(n);under=new Uint8Array(n);\n"
" for(i=1;i<n;i++){var p=d.parent[i];under[i]=under[p]||matches[p];matches[i]=fm[d.func[i]]?1:0;\n"
"  if(matches[i]&&!under[i]){sum+=cnt[i];set.push(i);}}\n"
" shown.setAttribute('data-samples',sum);\n"
" shown.textContent='matched: '+pct(sum).toFixed(2)+'% \\u00b1 '+errOf(set).toFixed(2)+' of all ('+\n"
"  (d.cpu&&cnt!==d.cpu?(sum*d.secs).toFixed(3)+' s of '+(total*d.secs).toFixed(3)+' s':sum+' of '+total+' samples')+')';render();}\n"
"search.addEventListener('input',find);\n"
"window.addEventListener('resize',render);\n"
"if(search.value)find();else render();\n"
"})();\n";

/*
 * The errors, as the views give them (share.h): each box's share of the
 * root's, "err" (the root itself is every sample: none); for the search,
 * which adds up boxes the page picks, what they rest on: the pools of
 * time placed by looks, [time, looks] each ("pools"), and the looks of
 * each box in them ("looks": box, pool, looks, ...).
 */
static void
errors_json(FILE *fp, const struct calltree *t, const struct share_basis *b,
    const size_t *order, size_t norder)
{
	const struct share_part *root = &t->v[0].part;
	size_t *slot = xcalloc(b->npools + 1, sizeof *slot);
	size_t n = 0;

	fputs("],\n\"err\":[0", fp);
	for (size_t k = 1; k < norder; k++)
		fprintf(fp, ",%.4f", share_error95(b, &t->v[order[k]].part, root));
	/* the pools in the root's order, numbered as the page knows them */
	fputs("],\n\"pools\":[", fp);
	for (size_t k = 0; k < root->nlooks; k++) {
		slot[root->looks[k].pool] = k;
		fprintf(fp, "%s%.6g,%llu", k ? "," : "",
		    (double)root->looks[k].sampled_ns / b->interval,
		    (unsigned long long)root->looks[k].looks);
	}
	fputs("],\n\"looks\":[", fp);
	for (size_t k = 0; k < norder; k++) {
		const struct share_part *r = &t->v[order[k]].part;

		for (size_t j = 0; j < r->nlooks; j++)
			fprintf(fp, "%s%zu,%zu,%llu", n++ ? "," : "", k,
			    slot[r->looks[j].pool],
			    (unsigned long long)r->looks[j].looks);
	}
	fputc(']', fp);
	free(slot);
}

/* The boxes drawn: the tree's nodes in preorder, the pruned left out. */
struct preorder {
	size_t *order;		/* node of each box */
	size_t *newpos;		/* box of each node drawn */
	size_t n;
	size_t pruned;		/* nodes left out */
	uint64_t pruned_samples;	/* the counts at their tops */
};

/*
 * t's nodes in preorder, heaviest child first, subtrees of fewer than
 * least counts left out.
 */
static void
preorder(struct preorder *po, const struct calltree *t, const struct stacks *s,
    uint64_t least)
{
	size_t *stack = xmalloc(t->n * sizeof *stack), nstack = 0;
	size_t *kids = xmalloc(t->n * sizeof *kids);
	size_t *size = xmalloc(t->n * sizeof *size);

	*po = (struct preorder){ xmalloc(t->n * sizeof *po->order),
	    xmalloc(t->n * sizeof *po->newpos), 0, 0, 0 };
	/* subtree sizes, to count what pruning leaves out; children come
	   after their parent in creation order */
	for (size_t i = 0; i < t->n; i++)
		size[i] = 1;
	for (size_t i = t->n; i-- > 1;)
		size[t->v[i].parent] += size[i];
	sort_stacks = s;
	sort_nodes = t->v;
	stack[nstack++] = 0;
	while (nstack > 0) {
		size_t at = stack[--nstack], nkids = 0;

		po->newpos[at] = po->n;
		po->order[po->n++] = at;
		for (size_t c = t->v[at].child; c != 0; c = t->v[c].sibling) {
			if (t->v[c].count >= least) {
				kids[nkids++] = c;
			} else {
				po->pruned += size[c];
				po->pruned_samples += t->v[c].count;
			}
		}
		qsort(kids, nkids, sizeof *kids, by_count);
		while (nkids > 0)
			stack[nstack++] = kids[--nkids];
	}
	free(size);
	free(kids);
	free(stack);
}

/*
 * The functions the boxes use, as JSON entries [name, object, kinds];
 * their numbers there, per function of s (UINT32_MAX: none), malloc'd.
 */
static uint32_t *
funcs_json(FILE *fp, const struct calltree *t, const struct stacks *s,
    const struct preorder *po)
{
	uint32_t *fmap = xmalloc(s->nfuncs * sizeof *fmap), nf = 0;

	for (size_t i = 0; i < s->nfuncs; i++)
		fmap[i] = UINT32_MAX;
	for (size_t k = 1; k < po->n; k++) {
		uint32_t fi = t->v[po->order[k]].func;
		const struct stack_func *fn = &s->funcs[fi];

		if (fmap[fi] != UINT32_MAX)
			continue;
		fmap[fi] = nf++;
		fputs(nf > 1 ? ",\n[" : "\n[", fp);
		json_string(fp, fn->function, JSON_IN_SCRIPT);
		fputc(',', fp);
		json_string(fp, fn->object, JSON_IN_SCRIPT);
		/*
		 * 1 kernel, 2 stack cut, 4 unknown code, 8 off the CPU, 16 its
		 * callers found by frame pointer
		 */
		fprintf(fp, ",%d]", (fn->kernel ? 1 : 0) | (fn->cut ? 2 : 0) |
		    (strcmp(fn->object, "[unknown]") == 0 ? 4 : 0) |
		    (strcmp(fn->object, WALL_VIEW_OBJECT) == 0 ? 8 : 0) |
		    (fn->fp_caller ? 16 : 0));
	}
	return fmap;
}

/* The boxes as JSON arrays: parent, function, counts (and CPU counts). */
static void
boxes_json(FILE *fp, const struct calltree *t, const struct preorder *po,
    const uint32_t *fmap, int wall)
{
	fputs("],\n\"parent\":[-1", fp);
	for (size_t k = 1; k < po->n; k++)
		fprintf(fp, ",%zu", po->newpos[t->v[po->order[k]].parent]);
	fputs("],\n\"func\":[-1", fp);
	for (size_t k = 1; k < po->n; k++)
		fprintf(fp, ",%u", fmap[t->v[po->order[k]].func]);
	fputs("],\n\"count\":[", fp);
	for (size_t k = 0; k < po->n; k++)
		fprintf(fp, k ? ",%llu" : "%llu",
		    (unsigned long long)t->v[po->order[k]].count);
	if (wall) {
		fprintf(fp, "],\n\"cputotal\":%llu,\n\"cpu\":[",
		    (unsigned long long)t->v[0].cpu);
		for (size_t k = 0; k < po->n; k++)
			fprintf(fp, k ? ",%llu" : "%llu",
			    (unsigned long long)t->v[po->order[k]].cpu);
	}
}

void
report_flame_html(FILE *fp, const struct profil_profile *p,
    const struct stacks *s)
{
	struct calltree t;
	struct share_basis b;
	struct preorder po;
	uint32_t *fmap;
	uint64_t total, least;

	if (p->nstacks == 0) {
		fputs("<h2 id=\"flame-graph\">Flame graph</h2>\n<p id=\"flame-none\">"
		    "The flame graph needs call stacks, and this profile has none: "
		    "record with the perf engine, without --no-call-graph.</p>\n",
		    fp);
		return;
	}
	share_basis_init(&b, p);
	calltree_build(&t, &b, s);
	total = t.v[0].count;
	/* count * FLAME_PRUNE >= total, without overflowing */
	least = total / FLAME_PRUNE + (total % FLAME_PRUNE != 0);
	preorder(&po, &t, s, least);
	fputs(intro, fp);
	fputs(tools, fp);
	if (po.pruned > 0)
		fprintf(fp, "<p class=\"fg-note\">Boxes under 0.1%% of the samples "
		    "(fewer than %llu) are left out: %zu of %zu boxes; %.2f%% of "
		    "the samples have one on their stack (the gaps above their "
		    "callers). The search counts only the boxes drawn.</p>\n",
		    (unsigned long long)least, po.pruned, t.n - 1,
		    report_percent(po.pruned_samples, total));
	/* scale: weighted samples widen the errors (share.h) */
	fprintf(fp, "<script type=\"application/json\" id=\"flame-data\">"
	    "{\"total\":%llu,\"scale\":%.6g,\"secs\":%.9g,\"funcs\":[",
	    (unsigned long long)total, b.scale, (double)p->interval_ns / 1e9);
	/* the function table holds only what the boxes use */
	fmap = funcs_json(fp, &t, s, &po);
	boxes_json(fp, &t, &po, fmap, b.off_obj >= 0);
	errors_json(fp, &t, &b, po.order, po.n);
	fprintf(fp, "}</script>\n<script>\n%s</script>\n", script);
	free(fmap);
	free(po.newpos);
	free(po.order);
	calltree_free(&t);
	share_basis_free(&b);
}
