/*
 * merge-kernel.c - the kernel's samples and the kept names of several
 * profiles summed (contract in merge-internal.h), at the addresses of the
 * first input's boot.  Invariant: a kernel address is moved only where
 * the same kernel's _text is known in both boots, and the result's names
 * are sorted without overlaps, as the format wants.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "merge-internal.h"

/* Can ki's addresses be moved to first's boot (same kernel, _text known)? */
static int
placeable(const struct profil_kernel *first, const struct profil_kernel *ki)
{
	return merge_same_file(&first->code, &ki->code) &&
	    (memcmp(first->boot_id, ki->boot_id, 16) == 0 ||
	    (first->text_addr != 0 && ki->text_addr != 0));
}

void
merge_kernel(struct profil_profile *const *in, const char *const *names,
    size_t n, struct profil_profile *out, struct merge_kplace *kp,
    cli_warn_fn *warn)
{
	const struct profil_kernel *first = NULL;
	struct profil_kernel *k;

	memset(kp, 0, n * sizeof *kp);
	for (size_t i = 0; i < n; i++) {
		const struct profil_kernel *ki = in[i]->kernel_code;

		if (in[i]->kernel == 0)
			continue;
		if (ki == NULL)
			return;		/* recorded without kernel addresses */
		if (first == NULL) {
			first = ki;
			continue;
		}
		if (!placeable(first, ki)) {
			cli_say(warn, "%s was recorded on another kernel or boot "
			    "than %s: the merged kernel samples keep no "
			    "addresses", names[i], names[0]);
			return;
		}
	}
	if (first == NULL)
		return;
	/* inputs without kernel samples too: their stacks may pass through it */
	for (size_t i = 0; i < n; i++) {
		const struct profil_kernel *ki = in[i]->kernel_code;

		if (ki == NULL || !placeable(first, ki))
			continue;
		kp[i].placed = 1;
		if (memcmp(first->boot_id, ki->boot_id, 16) != 0)
			kp[i].delta = first->text_addr - ki->text_addr;
	}
	k = out->kernel_code = xcalloc(1, sizeof *k);
	*k = *first;
	k->release = xstrdup(first->release ? first->release : "");
	k->code.path = xstrdup(first->code.path);
	k->code.buckets = NULL;
	k->code.nbuckets = 0;
	k->code.samples = 0;
	for (size_t i = 0; i < n; i++) {
		const struct profil_kernel *ki = in[i]->kernel_code;
		struct profil_object moved;
		struct profil_bucket *merged;
		size_t nmerged;

		if (in[i]->kernel == 0 || ki == NULL)
			continue;
		moved = ki->code;
		moved.buckets = xcalloc(ki->code.nbuckets + 1, sizeof *moved.buckets);
		for (size_t j = 0; j < ki->code.nbuckets; j++) {
			moved.buckets[j] = ki->code.buckets[j];
			moved.buckets[j].addr += kp[i].delta;
		}
		merged = merge_buckets(k->code.buckets, k->code.nbuckets, &moved,
		    0, 1, &nmerged);
		free(moved.buckets);
		free(k->code.buckets);
		k->code.buckets = merged;
		k->code.nbuckets = nmerged;
		k->code.samples += ki->code.samples;
	}
	if (k->code.nbuckets > 0) {
		k->code.lowpc = k->code.buckets[0].addr;
		k->code.highpc = k->code.buckets[k->code.nbuckets - 1].addr + 1;
	}
}

static int
by_symbol(const void *a, const void *b)
{
	const struct profil_symbol *x = a, *y = b;

	if (x->object != y->object)
		return x->object < y->object ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return strcmp(x->name, y->name);
}

void
merge_symbols(struct profil_profile *const *in, size_t n,
    struct profil_profile *out, size_t *const *where,
    const struct merge_kplace *kp)
{
	struct profil_symbol *all;
	size_t total = 0, m = 0;

	for (size_t i = 0; i < n; i++)
		total += in[i]->nsymbols;
	if (total == 0)
		return;
	all = xcalloc(total, sizeof *all);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < in[i]->nsymbols; j++) {
			struct profil_symbol sy = in[i]->symbols[j];
			uint64_t size = sy.end - sy.start;

			if (sy.object == PROFIL_SYMBOL_KERNEL) {
				if (!kp[i].placed)
					continue;
				sy.start += kp[i].delta;
				if (sy.start > UINT64_MAX - size)
					continue;	/* moved past 2^64 */
				sy.end = sy.start + size;
			} else {
				sy.object = (uint32_t)where[i][sy.object];
			}
			all[m++] = sy;
		}
	qsort(all, m, sizeof *all, by_symbol);
	out->symbols = xcalloc(m, sizeof *out->symbols);
	for (size_t i = 0; i < m; i++) {
		const struct profil_symbol *last = out->nsymbols > 0 ?
		    &out->symbols[out->nsymbols - 1] : NULL;

		if (last != NULL && last->object == all[i].object &&
		    last->end > all[i].start)
			continue;	/* the same name again, or an overlap */
		out->symbols[out->nsymbols] = all[i];
		out->symbols[out->nsymbols++].name = xstrdup(all[i].name);
	}
	free(all);
}
