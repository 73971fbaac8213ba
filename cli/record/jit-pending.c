/*
 * jit-pending.c - samples waiting for code named late (jit.h,
 * jit_code_defer): a runtime may write its files after running the code
 * (V8 buffers its jitdump file), so a sample with frames in code not yet
 * named waits for the files read whole.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fpmarks.h"
#include "jit-internal.h"
#include "jit-names.h"
#include "jit.h"

int
jit_code_defer(struct jit_code *c, const struct bframe *frames, size_t n,
    uint64_t weight, pid_t pid, pid_t tid, int flat)
{
	size_t k;

	if (c == NULL || (c->map == NULL && c->ndumps == 0) ||
	    c->npending >= JIT_PENDING_MAX)
		return 0;
	for (k = 0; k < n && frames[k].obj != BFRAME_UNKNOWN; k++)
		;
	if (k == n)
		return 0;
	if (c->npending == c->pending_cap) {
		c->pending_cap = c->pending_cap ? 2 * c->pending_cap : 64;
		c->pending = xrealloc(c->pending, c->pending_cap *
		    sizeof *c->pending);
	}
	while (c->npframes + n > c->pframes_cap) {
		c->pframes_cap = c->pframes_cap ? 2 * c->pframes_cap : 1024;
		c->pframes = xrealloc(c->pframes, c->pframes_cap *
		    sizeof *c->pframes);
	}
	memcpy(&c->pframes[c->npframes], frames, n * sizeof *frames);
	c->pending[c->npending++] = (struct pending){ c->npframes, n, weight,
	    pid, tid, flat };
	c->npframes += n;
	return 1;
}

void
jit_flush_pending(struct jit_code *c)
{
	if (c->npending == 0)
		return;
	jit_read_files(c, 1);
	for (size_t i = 0; i < c->npending; i++) {
		const struct pending *w = &c->pending[i];
		struct bframe *f = &c->pframes[w->first];

		for (size_t k = 0; k < w->n; k++) {
			const struct piece *p;

			if (f[k].obj == BFRAME_UNKNOWN &&
			    (p = jit_piece_at(c, f[k].value)) != NULL) {
				int fp = fpmarks_has(&f[k]);

				f[k] = jit_names_frame(p->sym,
				    f[k].value - p->start);
				if (fp)		/* its mark goes with its name */
					fpmarks_add(&f[k]);
			}
		}
		if (!w->flat)
			builder_sample_stack(jit_names_builder(), f, w->n, w->weight, w->pid,
			    w->tid);
		else if (f[0].obj >= 0)
			builder_sample(jit_names_builder(), f[0].obj, f[0].value, w->weight,
			    w->pid, w->tid);
		else
			builder_unknown(jit_names_builder(), w->weight, w->pid, w->tid);
	}
	c->npending = c->npframes = 0;
}
