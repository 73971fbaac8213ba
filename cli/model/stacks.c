/*
 * stacks.c - names for the frames of call stacks (stacks.h).  A function
 * is known by an identity string: object and start address for a symbol
 * (so two static functions of one name stay two, as in the flat view),
 * object and name for an inlined one, the address for a kernel function.
 * Invariant: every profile frame has at least one line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "stacks.h"
#include "symbols/ksyms.h"
#include "symbols/offcpu.h"

/* ---- functions ----------------------------------------------------------- */

static const char *
own(struct stacks *s, char *str)
{
	if (s->nowned == s->owned_cap) {
		s->owned_cap = s->owned_cap ? 2 * s->owned_cap : 256;
		s->owned = xrealloc(s->owned, s->owned_cap * sizeof *s->owned);
	}
	s->owned[s->nowned++] = str;
	return str;
}

/*
 * The function of identity key, made from proto if new; its index.  The
 * identities are numbered as the functions are: each new one makes one.
 */
static uint32_t
func_of(struct stacks *s, const char *key, const struct stack_func *proto)
{
	int added;
	size_t i = intern_add(&s->index, key, &added);

	if (!added)
		return (uint32_t)i;
	s->funcs = xrealloc(s->funcs, (s->nfuncs + 1) * sizeof *s->funcs);
	s->funcs[s->nfuncs] = *proto;
	if (proto->function == proto->symbol) {
		char *d = funcs_display_name(proto->symbol);

		if (d != NULL)
			s->funcs[s->nfuncs].function = own(s, d);
	}
	return (uint32_t)s->nfuncs++;
}

static const char *
cut_name(uint64_t reason)
{
	switch (reason) {
	case PROFIL_CUT_DEPTH: return "[stack cut: too deep]";
	case PROFIL_CUT_STACK: return "[stack cut: past the stack copied]";
	case PROFIL_CUT_NO_UNWIND: return "[stack cut: no unwind information]";
	case PROFIL_CUT_BROKEN: return "[stack cut: no sensible caller]";
	case PROFIL_CUT_NOT_TAKEN: return "[stack cut: no stack taken]";
	case PROFIL_CUT_BEHIND: return "[stack cut: recorder behind]";
	case PROFIL_CUT_UNREAD: return "[stack cut: stack page not copied]";
	case PROFIL_CUT_UNSEEN: return "[stack cut: caller not seen]";
	}
	return "[stack cut]";
}

struct lines {
	struct stack_line *v;
	size_t n, cap;
};

static void
add_line(struct lines *l, uint32_t func, const char *file, int line)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->v = xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n++] = (struct stack_line){ func, file, line };
}

/* The lines of a frame in an object: inlined functions, then its own. */
static void
object_frame(struct stacks *s, struct funcs *f, const struct profil_frame *fr,
    int flags, struct lines *l)
{
	const struct profil_object *o = &s->p->objects[fr->object];
	struct symtab *tab = f->tabs[fr->object];
	const char *base = funcs_base_name(o->path);
	struct symtab_frame in[16];
	uint64_t start, end;
	const char *name = tab ? symtab_lookup(tab, fr->addr, &start, &end) : NULL;
	char key[4200];
	size_t nin = 0;
	int line = 0;
	const char *file = NULL;

	if (name == NULL) {
		/* code outside any known function: the object's row */
		char *row = xmalloc(strlen(base) + 3);

		sprintf(row, "[%s]", base);
		snprintf(key, sizeof key, "o%u:[]", fr->object);
		add_line(l, func_of(s, key, &(struct stack_func){ own(s, row),
		    row, base, fr->object, 0, 0, 0, 0 }), NULL, 0);
		return;
	}
	if (flags & STACKS_INLINES)
		nin = symtab_inlines(tab, fr->addr, in, 16);
	for (size_t j = 0; j + 1 < nin; j++) {
		snprintf(key, sizeof key, "i%u:%s", fr->object, in[j].name);
		add_line(l, func_of(s, key, &(struct stack_func){ in[j].name,
		    in[j].name, base, fr->object, 0, 0, 0, 0 }), in[j].file,
		    in[j].line);
	}
	if (nin > 0) {
		file = in[nin - 1].file;
		line = in[nin - 1].line;
	} else if (!(flags & STACKS_NO_LINES)) {
		file = symtab_source(tab, fr->addr, &line);
	}
	snprintf(key, sizeof key, "o%u:%llx:%s", fr->object,
	    (unsigned long long)start, name);
	add_line(l, func_of(s, key, &(struct stack_func){ name, name, base,
	    fr->object, start, 0, 0, 0 }), file, file ? line : 0);
}

void
stacks_name(struct stacks *s, const struct profil_profile *p, struct funcs *f,
    int flags)
{
	struct lines l = { NULL, 0, 0 };
	char key[4200];

	memset(s, 0, sizeof *s);
	s->p = p;
	s->first = xcalloc(p->nframes + 1, sizeof *s->first);
	for (size_t i = 0; i < p->nframes; i++) {
		const struct profil_frame *fr = &p->frames[i];
		uint64_t start, end;
		const char *name;

		s->first[i] = l.n;
		if (fr->object < p->nobjects) {
			object_frame(s, f, fr, flags, &l);
		} else if (fr->object == PROFIL_FRAME_KERNEL) {
			name = ksyms_name(f->ktab, fr->addr, &start, &end);
			if (name == NULL) {
				name = "[kernel]";
				start = 0;
			}
			snprintf(key, sizeof key, "k%llx:%s",
			    (unsigned long long)start, name);
			add_line(&l, func_of(s, key, &(struct stack_func){ name,
			    name, "[kernel]", FUNC_NO_OBJECT, start, 1, 0, 0 }),
			    NULL, 0);
		} else if (fr->object == PROFIL_FRAME_UNKNOWN) {
			add_line(&l, func_of(s, "u", &(struct stack_func){
			    "[unknown]", "[unknown]", "[unknown]", FUNC_NO_OBJECT,
			    0, 0, 0, 0 }), NULL, 0);
		} else if (fr->object == PROFIL_FRAME_OFFCPU) {
			/* a wall profile's leaf: named as the wall view names it */
			char buf[96];

			name = own(s, xstrdup(offcpu_frame_name(fr->addr, buf,
			    sizeof buf)));
			snprintf(key, sizeof key, "w%s", name);
			add_line(&l, func_of(s, key, &(struct stack_func){ name,
			    name, "[off-cpu]", FUNC_NO_OBJECT, 0, 0, 0, 0 }), NULL, 0);
		} else {
			name = cut_name(fr->addr);
			snprintf(key, sizeof key, "c%s", name);
			add_line(&l, func_of(s, key, &(struct stack_func){ name,
			    name, "", FUNC_NO_OBJECT, 0, 0, 1, 0 }), NULL, 0);
		}
	}
	s->first[p->nframes] = l.n;
	s->lines = l.v;
	/* the caller found by frame pointer is the outermost function's */
	for (size_t k = 0; k < p->nfp_frames; k++) {
		uint32_t i = p->fp_frames[k];

		if (i < p->nframes && s->first[i + 1] > s->first[i])
			s->funcs[s->lines[s->first[i + 1] - 1].func].fp_caller = 1;
	}
}

void
stacks_free(struct stacks *s)
{
	intern_free(&s->index);
	for (size_t i = 0; i < s->nowned; i++)
		free(s->owned[i]);
	free(s->owned);
	free(s->funcs);
	free(s->lines);
	free(s->first);
	memset(s, 0, sizeof *s);
}

size_t
stacks_funcs_of(const struct stacks *s, const struct profil_stack *st,
    uint32_t *out, size_t max)
{
	size_t n = 0;

	for (size_t k = 0; k < st->depth; k++) {
		uint32_t fr = st->frames[k];

		for (size_t j = s->first[fr]; j < s->first[fr + 1] && n < max; j++)
			out[n++] = s->lines[j].func;
	}
	return n;
}

uint64_t *
stacks_inclusive(const struct stacks *s)
{
	uint64_t *incl = xcalloc(s->nfuncs + 1, sizeof *incl);
	uint32_t *seen = xcalloc(s->nfuncs + 1, sizeof *seen);
	static uint32_t funcs[STACKS_MAX_DEPTH];

	for (size_t i = 0; i < s->p->nstacks; i++) {
		const struct profil_stack *st = &s->p->stacks[i];
		size_t n = stacks_funcs_of(s, st, funcs, STACKS_MAX_DEPTH);

		/* seen[f] == i + 1: already counted for this stack */
		for (size_t k = 0; k < n; k++)
			if (seen[funcs[k]] != i + 1) {
				seen[funcs[k]] = (uint32_t)(i + 1);
				incl[funcs[k]] += st->count;
			}
	}
	free(seen);
	return incl;
}

long
stacks_find(const struct stacks *s, const char *name)
{
	uint64_t *incl = NULL;
	long best = -1;

	for (size_t i = 0; i < s->nfuncs; i++) {
		if (!funcs_name_matches(s->funcs[i].function, name) &&
		    strcmp(s->funcs[i].symbol, name) != 0)
			continue;
		if (best >= 0 && incl == NULL)
			incl = stacks_inclusive(s);
		if (best < 0 || incl[i] > incl[best])
			best = (long)i;
	}
	free(incl);
	return best;
}

long
stacks_func_of_row(const struct stacks *s, const struct func_row *row)
{
	char key[4200];

	if (strcmp(row->object, "[kernel]") == 0)
		snprintf(key, sizeof key, "k%llx:%s", (unsigned long long)row->start,
		    row->symbol);
	else if (row->object_index == FUNC_NO_OBJECT)
		snprintf(key, sizeof key, "u");
	else if (row->start == 0 && row->end == 0 && row->symbol[0] == '[')
		snprintf(key, sizeof key, "o%zu:[]", row->object_index);
	else if (row->start == 0 && row->end == 0)
		snprintf(key, sizeof key, "i%zu:%s", row->object_index, row->symbol);
	else
		snprintf(key, sizeof key, "o%zu:%llx:%s", row->object_index,
		    (unsigned long long)row->start, row->symbol);
	return intern_find(&s->index, key);
}
