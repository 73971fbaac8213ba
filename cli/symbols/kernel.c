/*
 * kernel.c - the running kernel's identity (kernel.h).  _text is read
 * from the top of /proc/kallsyms, where the core kernel's text starts:
 * reading all of it (some 200,000 lines) would cost a report's worth of
 * time at every start.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cli.h"
#include "kernel.h"

/* The lines of /proc/kallsyms read for _text before giving up. */
#define KALLSYMS_HEAD 4096

static size_t
align4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

/* The GNU build-id note among the kernel's notes. */
static void
read_build_id(struct profil_object *code)
{
	unsigned char buf[4096];
	ssize_t n;
	size_t at = 0;
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	n = read(fd, buf, sizeof buf);
	close(fd);
	while (n > 0 && at + sizeof(Elf64_Nhdr) <= (size_t)n) {
		Elf64_Nhdr nh;
		size_t name_at, desc_at;

		memcpy(&nh, buf + at, sizeof nh);
		name_at = at + sizeof nh;
		desc_at = name_at + align4(nh.n_namesz);
		if (desc_at + nh.n_descsz > (size_t)n || desc_at < name_at)
			return;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp(buf + name_at, "GNU", 4) == 0 &&
		    nh.n_descsz <= sizeof code->build_id) {
			memcpy(code->build_id, buf + desc_at, nh.n_descsz);
			code->build_id_len = nh.n_descsz;
			return;
		}
		at = desc_at + align4(nh.n_descsz);
	}
}

/* boot_id "8c0f...-..." as 16 bytes. */
static void
read_boot_id(unsigned char id[16])
{
	char text[64];
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
	size_t k = 0;

	if (f == NULL)
		return;
	if (fgets(text, sizeof text, f) != NULL)
		for (const char *s = text; *s && k < 16; s++) {
			unsigned v;

			if (*s == '-' || *s == '\n')
				continue;
			if (sscanf(s, "%2x", &v) != 1)
				break;
			id[k++] = (unsigned char)v;
			s++;
		}
	fclose(f);
	if (k != 16)
		memset(id, 0, 16);
}

static uint64_t
read_text_addr(void)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512];
	uint64_t addr = 0;

	if (f == NULL)
		return 0;
	for (int i = 0; i < KALLSYMS_HEAD && fgets(line, sizeof line, f); i++) {
		unsigned long long a;
		char type, name[256];

		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 &&
		    strcmp(name, "_text") == 0) {
			addr = a;	/* 0 where kptr_restrict hides it */
			break;
		}
	}
	fclose(f);
	return addr;
}

void
kernel_identify(struct profil_kernel *k)
{
	struct utsname u;

	read_build_id(&k->code);
	if (uname(&u) == 0)
		k->release = xstrdup(u.release);
	read_boot_id(k->boot_id);
	k->text_addr = read_text_addr();
}
