/*
 * cmd-archive.c - `profil archive [-o OUT] FILE`: keep in the profile the
 * names of every function that has samples (the program's, each
 * library's, the kernel's), read from the files here, so that the profile
 * names its functions on a machine without those files or after they
 * were rebuilt (report uses them where it finds no file of the right
 * build-id).  Only names travel: source lines and instructions still need
 * the files (--symfs, --debug-dir, debuginfod).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <profil.h>

#include "cli.h"
#include "outfile.h"
#include "codec/prf.h"
#include "symbols/find.h"
#include "symbols/ksyms.h"
#include "symbols/symbols.h"

struct kept {
	struct profil_symbol *v;
	size_t n, cap;
};

static void
keep(struct kept *k, uint32_t object, uint64_t start, uint64_t end,
    const char *name)
{
	/* buckets come in address order: a function repeats only in a row */
	if (k->n > 0 && k->v[k->n - 1].object == object &&
	    k->v[k->n - 1].start == start)
		return;
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 256;
		k->v = xrealloc(k->v, k->cap * sizeof *k->v);
	}
	k->v[k->n++] = (struct profil_symbol){ object, start, end, xstrdup(name) };
}

/*
 * The names of object oi's sampled code and of its callers in the stacks;
 * 0, or -1 if none could be read.
 */
static int
keep_object(const struct profil_profile *p, size_t oi, struct kept *k)
{
	const struct profil_object *o = &p->objects[oi];
	const char *problem;
	struct symtab *t = symtab_open_profile(p, oi, &problem);
	uint64_t start, end;

	if (problem != NULL) {
		cli_warn("%s: %s; its names are not kept", o->path, problem);
		symtab_close(t);
		return -1;
	}
	for (size_t i = 0; i < o->nbuckets; i++) {
		uint64_t addr = o->buckets[i].addr;
		uint64_t last = addr + (o->bucket_bytes - 1);
		struct symtab_piece *pieces;
		size_t n;
		const char *name = symtab_lookup(t, addr, &start, &end);

		if (name == NULL)
			continue;
		if (last < end && last >= addr) {
			keep(k, (uint32_t)oi, start, end, name);
			continue;
		}
		/* a wide bucket over several functions: each of them */
		n = symtab_pieces(t, addr, last < addr ? UINT64_MAX : last + 1,
		    &pieces);
		for (size_t j = 0; j < n; j++)
			keep(k, (uint32_t)oi, pieces[j].start, pieces[j].end,
			    pieces[j].name);
		free(pieces);
	}
	/* and the callers the stacks hold, where no sample was their own */
	for (size_t i = 0; i < p->nframes; i++) {
		const char *name;

		if (p->frames[i].object != oi)
			continue;
		name = symtab_lookup(t, p->frames[i].addr, &start, &end);
		if (name != NULL)
			keep(k, (uint32_t)oi, start, end, name);
	}
	symtab_close(t);
	return 0;
}

/* Whether object oi has samples, or frames in the stacks. */
static int
in_profile(const struct profil_profile *p, size_t oi)
{
	if (p->objects[oi].nbuckets > 0)
		return 1;
	for (size_t i = 0; i < p->nframes; i++)
		if (p->frames[i].object == oi)
			return 1;
	return 0;
}

static int
keep_kernel(const struct profil_profile *p, struct kept *k)
{
	const struct profil_object *code = &p->kernel_code->code;
	const char *problem;
	struct ksyms *t = ksyms_open_profile(p, &problem);
	uint64_t start, end;

	if (problem != NULL) {
		cli_warn("kernel: %s; its names are not kept", problem);
		ksyms_close(t);
		return -1;
	}
	for (size_t i = 0; i < code->nbuckets; i++) {
		const char *name = ksyms_lookup(t, code->buckets[i].addr, &start,
		    &end);

		if (name != NULL)
			keep(k, PROFIL_SYMBOL_KERNEL, start, end, name);
	}
	ksyms_close(t);
	return 0;
}

/* Sorted, and apart: a repeat (one name found from two buckets) goes. */
static void
tidy(struct kept *k)
{
	size_t out = 0;

	if (k->n > 1)
		qsort(k->v, k->n, sizeof *k->v, cli_symbol_order);
	for (size_t i = 0; i < k->n; i++) {
		struct profil_symbol *prev = out ? &k->v[out - 1] : NULL;

		if (prev != NULL && prev->object == k->v[i].object &&
		    k->v[i].start < prev->end) {
			free(k->v[i].name);
			continue;
		}
		k->v[out++] = k->v[i];
	}
	k->n = out;
}

static int
archive_exec(int argc, char **argv)
{
	const char *out = NULL, *symfs = NULL, *debug_dirs = NULL;
	struct profil_profile *p;
	struct kept k = { NULL, 0, 0 };
	char cause[512];
	size_t objects = 0;
	int c;

	while ((c = cli_getopt(argc, argv, &cmd_archive, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (*optarg == '\0')
				cli_die(EXIT_USAGE, "-o: an empty name");
			out = optarg;
			break;
		case 'S':
			symfs = optarg;
			break;
		case 'D':
			debug_dirs = optarg;
			break;
		case 'h':
			return cli_help(&cmd_archive);
		default:
			cli_bad_option(c, optopt, argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1)
		cli_die(EXIT_USAGE, "one profile to archive (see 'profil archive "
		    "--help')");
	if (out == NULL)
		out = argv[optind];
	find_search_set(symfs, debug_dirs);
	/* the profile first: what is wrong with it is what to hear of */
	p = profil_profile_read(argv[optind], cause, sizeof cause);
	if (p == NULL)
		cli_die(1, "%s: %s", argv[optind], cause);
	if (outfile_may_replace(out, PRF_MAGIC, cause, sizeof cause) < 0) {
		profil_profile_free(p);
		cli_die(1, "%s", cause);
	}
	for (size_t i = 0; i < p->nobjects; i++)
		if (in_profile(p, i) && keep_object(p, i, &k) == 0)
			objects++;
	if (p->kernel_code != NULL && p->kernel_code->code.nbuckets > 0 &&
	    keep_kernel(p, &k) == 0)
		objects++;
	tidy(&k);
	for (size_t i = 0; i < p->nsymbols; i++)
		free(p->symbols[i].name);
	free(p->symbols);
	p->symbols = k.v;
	p->nsymbols = k.n;
	if (profil_profile_save(p, out, cause, sizeof cause) < 0) {
		profil_profile_free(p);
		cli_die(1, "cannot write %s: %s", out, cause);
	}
	printf("%s: %zu function names kept, of %zu objects\n", out, k.n, objects);
	profil_profile_free(p);
	return cli_finish_stdout(0);
}

static const struct cli_opt archive_options[] = {
	{ "output", required_argument, 'o', CLI_SHORT, CLI_FILE,
	    "  -o, --output OUT     write the archived profile there (default: FILE\n"
	    "                       itself, replaced atomically)\n" },
	{ "symfs", required_argument, 'S', 0, CLI_DIR,
	    "      --symfs DIR      find the profiled files under DIR, a copy of the\n"
	    "                       recording machine's root (default: their paths)\n" },
	{ "debug-dir", required_argument, 'D', 0, CLI_DIR,
	    "      --debug-dir DIRS also look for them by build-id in these\n"
	    "                       directories (DIR/.build-id/xx/...; colon-separated)\n" },
	{ "help", no_argument, 'h', CLI_SHORT, NULL,
	    "  -h, --help           this help\n" },
	{ NULL, 0, 0, 0, NULL,
	    "Only names are kept: source lines and instructions need the files.\n" },
	{ NULL, 0, 0, 0, NULL, NULL },
};

const struct cmd cmd_archive = {
	"archive", "[-o OUT] [--symfs DIR] [--debug-dir DIRS] FILE",
	"keep the names of the sampled functions in the profile, so that it "
	    "names them anywhere",
	archive_exec, archive_options, CLI_PROFILES, NULL,
};
