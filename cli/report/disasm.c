/*
 * disasm.c - capstone through dlopen (see disasm.h for why).  The
 * library loaded is the one of the major version compiled against, so
 * that cs_insn's layout is the header's.
 */
#include <capstone/capstone.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "disasm.h"

#define STR_(x) #x
#define STR(x) STR_(x)

static struct {
	int tried;
	cs_err (*open)(cs_arch, cs_mode, csh *);
	size_t (*disasm)(csh, const uint8_t *, size_t, uint64_t, size_t,
	    cs_insn **);
	void (*free)(cs_insn *, size_t);
	cs_err (*close)(csh *);
} cs_calls;

static int
load_capstone(void)
{
	void *lib;

	if (cs_calls.tried)
		return cs_calls.close != NULL;
	cs_calls.tried = 1;
	lib = dlopen("libcapstone.so." STR(CS_API_MAJOR), RTLD_LAZY | RTLD_LOCAL);
	if (lib == NULL)
		return 0;
	cs_calls.open = (cs_err (*)(cs_arch, cs_mode, csh *))dlsym(lib, "cs_open");
	cs_calls.disasm = (size_t (*)(csh, const uint8_t *, size_t, uint64_t,
	    size_t, cs_insn **))dlsym(lib, "cs_disasm");
	cs_calls.free = (void (*)(cs_insn *, size_t))dlsym(lib, "cs_free");
	cs_calls.close = (cs_err (*)(csh *))dlsym(lib, "cs_close");
	if (cs_calls.open == NULL || cs_calls.disasm == NULL ||
	    cs_calls.free == NULL || cs_calls.close == NULL) {
		cs_calls.close = NULL;
		return 0;
	}
	return 1;
}

size_t
disasm_x86_64(const unsigned char *code, size_t size, uint64_t address,
    struct disasm_insn **out)
{
	cs_insn *insn = NULL;
	size_t count;
	csh cs;

	*out = NULL;
	if (code == NULL || size == 0 || !load_capstone() ||
	    cs_calls.open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return 0;
	count = cs_calls.disasm(cs, code, size, address, 0, &insn);
	if (count > 0) {
		*out = xcalloc(count, sizeof **out);
		for (size_t i = 0; i < count; i++) {
			size_t len = strlen(insn[i].mnemonic) +
			    strlen(insn[i].op_str) + 2;

			(*out)[i].address = insn[i].address;
			(*out)[i].size = insn[i].size;
			(*out)[i].text = xmalloc(len);
			snprintf((*out)[i].text, len, "%s%s%s", insn[i].mnemonic,
			    insn[i].op_str[0] ? " " : "", insn[i].op_str);
		}
		cs_calls.free(insn, count);
	}
	cs_calls.close(&cs);
	return count;
}

void
disasm_free(struct disasm_insn *insns, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(insns[i].text);
	free(insns);
}
