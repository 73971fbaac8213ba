/*
 * hotspots.c - the bundled example: a program that profiles itself with
 * the classic profil() call and prints where its time went.
 *
 * Three functions with the same loop body run 6:3:1 times; the profile
 * should show about 60%, 30% and 10%.  Functions are found with dladdr(),
 * so the program is linked with -rdynamic.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <profil.h>

volatile unsigned long sink;

void work(unsigned long n);
void heavy(unsigned long n);
void light(unsigned long n);

__attribute__((noinline)) void
work(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink = sink * 6364136223846793005ul + i;
}

__attribute__((noinline)) void
heavy(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink = sink * 6364136223846793005ul + i;
}

__attribute__((noinline)) void
light(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink = sink * 6364136223846793005ul + i;
}

/* The executable's text segment: its first PT_LOAD with PF_X. */
static int
find_text(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t *range = data;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			range[0] = info->dlpi_addr + ph->p_vaddr;
			range[1] = range[0] + ph->p_memsz;
			return 1;
		}
	}
	return 1;	/* only the first object: the executable */
}

struct row {
	const char *name;
	unsigned long count;
};

int
main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 100;
	uintptr_t text[2] = { 0, 0 };
	struct profil_status st;
	struct row rows[64];
	unsigned short *buf;
	size_t nbins, i, nrows = 0;
	unsigned long total = 0;

	dl_iterate_phdr(find_text, text);
	/* scale 0x10000: one 16-bit counter per 2 bytes of code */
	nbins = (text[1] - text[0]) / 2 + 1;
	buf = calloc(nbins, sizeof *buf);
	if (buf == NULL || profil(buf, nbins * sizeof *buf, text[0], 0x10000) < 0) {
		perror("hotspots: profil");
		return 1;
	}
	for (unsigned long r = 0; r < rounds; r++) {
		work(6000000);
		heavy(3000000);
		light(1000000);
	}
	profil_get_status(&st);
	profil(buf, 0, 0, 0);	/* scale 0 stops */

	for (i = 0; i < nbins; i++) {
		Dl_info info;
		const char *name = "?";
		size_t k;

		if (buf[i] == 0)
			continue;
		total += buf[i];
		if (dladdr((void *)(text[0] + 2 * i), &info) && info.dli_sname)
			name = info.dli_sname;
		for (k = 0; k < nrows && strcmp(rows[k].name, name) != 0; k++)
			;
		if (k == nrows && nrows < 64)
			rows[nrows++] = (struct row){ name, 0 };
		if (k < nrows)
			rows[k].count += buf[i];
	}
	printf("profil(): %s sampling at %u Hz (tick %u Hz), %.2f s CPU, "
	    "%llu samples\n", profil_mechanism_name(st.mechanism), st.rate_hz,
	    st.tick_hz, st.cpu_seconds, (unsigned long long)st.samples);
	printf("expected split: work 60%%, heavy 30%%, light 10%%\n\n");
	printf("%8s %7s  %s\n", "samples", "percent", "function");
	for (i = 0; i < nrows; i++) {
		size_t best = i;
		for (size_t k = i + 1; k < nrows; k++)
			if (rows[k].count > rows[best].count)
				best = k;
		struct row t = rows[i];
		rows[i] = rows[best];
		rows[best] = t;
		printf("%8lu %6.1f%%  %s\n", rows[i].count,
		    total ? 100.0 * rows[i].count / total : 0.0, rows[i].name);
	}
	free(buf);
	return 0;
}
