#include "config.h"
#include "op_proto.h"

#include <stddef.h>

static const struct {
	const char *name;
	int nr_args;
} codes[OP_NR_CODES] = {
	[OP_CTX_SWITCH] = { "CTX_SWITCH", 2 },
	[OP_CTX_TGID] = { "CTX_TGID", 1 },
	[OP_COOKIE_SWITCH] = { "COOKIE_SWITCH", 1 },
	[OP_CPU_SWITCH] = { "CPU_SWITCH", 1 },
	[OP_KERNEL_ENTER] = { "KERNEL_ENTER", 0 },
	[OP_USER_ENTER] = { "USER_ENTER", 0 },
	[OP_MODULE_LOADED] = { "MODULE_LOADED", 0 },
	[OP_TRACE_BEGIN] = { "TRACE_BEGIN", 0 },
	[OP_TRACE_END] = { "TRACE_END", 0 },
	[OP_DROPPED] = { "DROPPED", 1 },
	[OP_SAMPLE_COUNT] = { "SAMPLE_COUNT", 1 },
};

int op_code_nr_args(uint64_t code)
{
	if (code == 0 || code >= OP_NR_CODES)
		return -1;
	return codes[code].nr_args;
}

const char *op_code_name(uint64_t code)
{
	if (code == 0 || code >= OP_NR_CODES)
		return "unknown";
	return codes[code].name;
}
