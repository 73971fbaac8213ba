/*
 * cmd-export.c - `profil export --format FORMAT [-o OUT] FILE`: the
 * profile in another tool's format.
 *
 * pprof: one gzipped profile.proto file (export-pprof.c), -o names it.
 *
 * gmon: gmon.out files GNU gprof reads, one per object with samples
 * (gmon.OBJECT.out in the directory -o names), at link-time addresses.
 * Only the flat histogram: PC sampling records no call arcs, so gprof's
 * call graph stays empty.
 *
 * gmon.out: "gmon" version:u32(1) spare[12], then histogram records:
 *   tag:u8(0) low_pc high_pc (address-sized) bins:u32 rate:u32
 *   dimension[15] abbrev:u8, then bins 16-bit counts (host order).
 * A count above 65535 continues in further records over the same range,
 * which gprof adds up.  gprof works in 2-byte units and truncates bin
 * addresses to them, so bins are at least 2 bytes wide.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <profil.h>

#include "cli.h"
#include "outfile.h"
#include "export-pprof.h"
#include "symbols.h"

static void
put(FILE *f, const void *p, size_t n)
{
	fwrite(p, 1, n, f);
}

/* Write one object's histogram; 0, or -1 with a cause. */
static int
write_gmon(const struct profil_profile *p, const struct profil_object *o,
    const char *path, char *cause, size_t cause_size)
{
	uint64_t width = o->bucket_bytes < 2 ? 2 : o->bucket_bytes;
	uint64_t low = o->lowpc - o->lowpc % width, nbins, *left, more = 1, i;
	char dimen[15] = "seconds";
	uint32_t version = 1, bins32, rate;
	struct outfile of;
	FILE *f;

	nbins = (o->highpc - low + width - 1) / width;
	if (nbins > UINT32_MAX) {
		snprintf(cause, cause_size, "%s: %s", path, strerror(EFBIG));
		return -1;
	}
	left = xcalloc(nbins, sizeof *left);
	for (i = 0; i < o->nbuckets; i++)
		left[(o->buckets[i].addr - low) / width] += o->buckets[i].count;
	if (outfile_open(&of, path, OUTFILE_GMON, cause, cause_size) < 0) {
		free(left);
		return -1;
	}
	if ((f = fdopen(of.fd, "w")) == NULL) {
		snprintf(cause, cause_size, "%s: %s", path, strerror(errno));
		outfile_abort(&of, NULL);
		free(left);
		return -1;
	}
	put(f, "gmon", 4);
	put(f, &version, 4);
	put(f, "\0\0\0\0\0\0\0\0\0\0\0\0", 12);
	bins32 = (uint32_t)nbins;
	rate = p->interval_ns ? (uint32_t)(1000000000u / p->interval_ns) : 1;
	while (more) {
		uint64_t high = low + nbins * width;

		more = 0;
		fputc(0, f);			/* GMON_TAG_TIME_HIST */
		put(f, &low, sizeof low);
		put(f, &high, sizeof high);
		put(f, &bins32, 4);
		put(f, &rate, 4);
		put(f, dimen, 15);
		fputc('s', f);
		for (i = 0; i < nbins; i++) {
			uint16_t c = left[i] > 65535 ? 65535 : (uint16_t)left[i];

			left[i] -= c;
			more |= left[i];
			put(f, &c, 2);
		}
	}
	free(left);
	return outfile_commit(&of, f, cause, cause_size);
}

/* The gmon.out files of p in dir; the exit status. */
static int
export_gmon(const struct profil_profile *p, const char *file, const char *dir)
{
	char cause[PATH_MAX + 256];
	char path[PATH_MAX];
	int written = 0;

	for (size_t i = 0; i < p->nobjects; i++) {
		const struct profil_object *o = &p->objects[i];
		const char *slash = strrchr(o->path, '/');

		if (o->samples == 0 || o->path[0] != '/')
			continue;
		snprintf(path, sizeof path, "%s/gmon.%s.out", dir, slash + 1);
		if (write_gmon(p, o, path, cause, sizeof cause) < 0) {
			cli_error("%s", cause);
			return 1;
		}
		printf("%s\t%s\n", path, o->path);
		written++;
	}
	if (written == 0)
		cli_warn("%s: no object has samples: nothing to export", file);
	return 0;
}

/* p as the pprof file path; the exit status. */
static int
export_pprof(const struct profil_profile *p, const char *path)
{
	struct symtab **tabs = xcalloc(p->nobjects, sizeof *tabs);
	const char *problem;
	char cause[PATH_MAX + 256];
	int status = 0;

	for (size_t i = 0; i < p->nobjects; i++) {
		if (p->objects[i].samples == 0)
			continue;	/* no Location needs a name */
		tabs[i] = symtab_open(&p->objects[i], &problem);
		if (problem != NULL)
			cli_warn("%s: %s; its samples have no function names",
			    p->objects[i].path, problem);
	}
	if (export_pprof_save(p, tabs, path, cause, sizeof cause) < 0) {
		cli_error("%s", cause);
		status = 1;
	} else {
		printf("%s\n", path);
	}
	for (size_t i = 0; i < p->nobjects; i++)
		if (tabs[i] != NULL)
			symtab_close(tabs[i]);
	free(tabs);
	return status;
}

static int
export_exec(int argc, char **argv)
{
	static const struct option options[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *format = NULL, *out = NULL;
	struct profil_profile *p;
	char cause[256];
	struct stat st;
	int c, pprof, status;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:f:o:h", options, NULL)) != -1) {
		switch (c) {
		case 'f':
			format = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			printf("usage: profil export %s\n"
			    "  --format pprof  one gzipped pprof profile (profile.proto)"
			    " for pprof,\n                  Pyroscope, Parca, Grafana;"
			    " -o FILE, default %s\n"
			    "  --format gmon   gmon.OBJECT.out files for GNU gprof, one"
			    " per object\n                  with samples; -o DIR,"
			    " default the current directory\n",
			    cmd_export.usage, EXPORT_PPROF_DEFAULT_PATH);
			return cli_finish_stdout(0);
		default:
			cli_bad_option(c, optopt, argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (format == NULL || (strcmp(format, "gmon") != 0 &&
	    strcmp(format, "pprof") != 0))
		cli_die(EXIT_USAGE, "--format: %s%s%s (gmon, pprof)", format ?
		    "unknown format '" : "a format is needed", format ? format : "",
		    format ? "'" : "");
	pprof = strcmp(format, "pprof") == 0;
	if (optind != argc - 1)
		cli_die(EXIT_USAGE, "one profile to export (see 'profil export --help')");
	if (out != NULL && *out == '\0')
		cli_die(EXIT_USAGE, "-o: an empty name");
	if (out == NULL)
		out = pprof ? EXPORT_PPROF_DEFAULT_PATH : ".";
	if (!pprof && (stat(out, &st) < 0 || !S_ISDIR(st.st_mode)))
		cli_die(EXIT_USAGE, "-o: %s: not a directory", out);
	p = profil_profile_read(argv[optind], cause, sizeof cause);
	if (p == NULL)
		cli_die(1, "%s: %s", argv[optind], cause);
	status = pprof ? export_pprof(p, out) : export_gmon(p, argv[optind], out);
	profil_profile_free(p);
	return cli_finish_stdout(status);
}

const struct cmd cmd_export = {
	"export", "--format pprof|gmon [-o FILE|DIR] PROFILE",
	"write the profile in another tool's format (pprof's profile.proto, "
	    "gprof's gmon.out)",
	export_exec,
};
