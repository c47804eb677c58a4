/* opannotate --assembly: the kept symbols disassembled with the samples of
 * each instruction. OProfile runs objdump and annotates its text; we
 * disassemble in process with capstone and write objdump's layout
 * ("    1690:\tmov    0x42a29(%rip),%rax        # 440c0 <sink>") so the
 * two read alike. On x86, capstone's AT&T text is rebuilt from its
 * operand details in objdump's spelling: no size suffix when a register
 * fixes the size, hex immediates, "0x0(%rax)" when the encoding holds a
 * displacement, branch targets and %rip operands named by symbol. Other
 * architectures print capstone's own text.
 *
 * With --source, source lines are interleaved as objdump -S does: when
 * an instruction's line differs from the last one of its file, the lines
 * from the last printed (or 5 before) up to it. */
#include "config.h"

#include "pp_annotate.h"

#include <capstone/capstone.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "op_grow.h"
#include "pp_symbols.h"
#include "pp_symview.h"

/* OProfile calls objdump once per symbol up to this many symbols of an
 * image, else once for the whole image (and the layout differs) */
#define MAX_BLOCKS 50
/* objdump -S's context before a file's first line */
#define CONTEXT_LINES 5

/* One source file's lines and objdump -S's state for it. */
struct src_file {
	const char *name;
	char **lines;			/* NULL: unreadable */
	size_t nr_lines, alloc_lines;
	int max_printed, last_line;
};

struct asm_ctx {
	FILE *out;
	struct pp_annot *a;		/* its joined names grow */
	const struct pp_annot_opts *o;
	const struct pp_symtab *st;
	Elf *elf;
	const char *path;		/* the binary, as objdump would name it */
	csh cs, cs_intel;		/* AT&T for operands, Intel for mnemonics */
	bool x86;
	int addr_width;
	struct src_file *files;
	size_t nr_files, alloc_files;
	char *fill, *buf;
	size_t buf_len;
};

/* ---- source lines (objdump -S) ---- */

static struct src_file *src_get(struct asm_ctx *x, const char *name)
{
	struct src_file *f;
	FILE *in;
	char *line = NULL;
	size_t cap = 0;
	ssize_t got;

	for (size_t i = 0; i < x->nr_files; i++)
		if (!strcmp(x->files[i].name, name))
			return &x->files[i];
	if (x->nr_files == x->alloc_files) {
		f = op_grow(x->files, x->nr_files + 1, &x->alloc_files, 8,
			    sizeof(*f));
		if (!f)
			return NULL;
		x->files = f;
	}
	f = &x->files[x->nr_files++];
	memset(f, 0, sizeof(*f));
	f->name = name;
	in = fopen(name, "r");
	if (!in)
		return f;
	while ((got = getline(&line, &cap, in)) >= 0) {
		if (f->nr_lines == f->alloc_lines) {
			char **v = op_grow(f->lines, f->nr_lines + 1,
					   &f->alloc_lines, 256, sizeof(*v));

			if (!v)
				break;
			f->lines = v;
		}
		if (got && line[got - 1] == '\n')
			line[got - 1] = '\0';
		f->lines[f->nr_lines] = strdup(line);
		if (!f->lines[f->nr_lines])
			break;
		f->nr_lines++;
	}
	free(line);
	fclose(in);
	return f;
}

/* a new objdump run: every file's state starts again */
static void src_reset(struct asm_ctx *x)
{
	for (size_t i = 0; i < x->nr_files; i++)
		x->files[i].max_printed = x->files[i].last_line = 0;
}

static void show_source(struct asm_ctx *x, uint64_t vma)
{
	const char *name;
	struct src_file *f;
	int line, from;

	if (!x->o->source || !pp_annot_line_of(x->a, x->st, vma, &name, &line))
		return;
	f = src_get(x, name);
	if (!f || !f->lines || line == f->last_line)
		return;
	from = line - CONTEXT_LINES;
	if (from < 1)
		from = 1;
	if (f->max_printed >= from)
		from = f->max_printed < line ? f->max_printed + 1 : line;
	for (int l = from; l <= line && (size_t)l <= f->nr_lines; l++)
		fprintf(x->out, "%s%s\n", x->fill, f->lines[l - 1]);
	if (f->max_printed < line)
		f->max_printed = line;
	f->last_line = line;
}

/* ---- objdump's spelling of an x86 instruction ---- */

/* The name objdump puts in "<...>" for an address: the symbol holding it
 * (any kind: objects name %rip operands), "+0xOFF" inside it. */
static bool name_addr(const struct asm_ctx *x, uint64_t addr, char *buf, size_t len)
{
	const struct pp_sym *s = pp_symtab_lookup(x->st, addr);
	const char *name = NULL;
	uint64_t start = 0;

	if (s) {
		name = s->name;
		start = s->start;
	} else if (x->st->mod) {
		GElf_Off off;
		GElf_Sym sym;

		name = dwfl_module_addrinfo(x->st->mod, addr + x->st->bias, &off,
					    &sym, NULL, NULL, NULL);
		start = addr - off;
	}
	if (!name)
		return false;
	if (addr == start)
		snprintf(buf, len, "%" PRIx64 " <%s>", addr, name);
	else
		snprintf(buf, len, "%" PRIx64 " <%s+0x%" PRIx64 ">", addr, name,
			 addr - start);
	return true;
}

static size_t put(char *buf, size_t len, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static size_t put(char *buf, size_t len, size_t at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (at >= len)
		return at;
	va_start(ap, fmt);
	n = vsnprintf(buf + at, len - at, fmt, ap);
	va_end(ap);
	return n < 0 ? at : at + (size_t)n;
}

static size_t put_hex(char *buf, size_t len, size_t at, int64_t v)
{
	if (v < 0)
		return put(buf, len, at, "-0x%" PRIx64, (uint64_t)-v);
	return put(buf, len, at, "0x%" PRIx64, (uint64_t)v);
}

static bool is_group(const cs_insn *in, uint8_t group)
{
	for (uint8_t i = 0; i < in->detail->groups_count; i++)
		if (in->detail->groups[i] == group)
			return true;
	return false;
}

/* mnemonic and operands of one x86 instruction, objdump's way */
static void x86_text(struct asm_ctx *x, const cs_insn *in, const uint8_t *code,
		     char *mn, size_t mn_len, char *ops, size_t ops_len)
{
	const cs_x86 *d = &in->detail->x86;
	bool branch = is_group(in, CS_GRP_JUMP) || is_group(in, CS_GRP_CALL) ||
		      is_group(in, CS_GRP_RET);
	bool has_reg = false;
	uint64_t rip_target = 0;
	bool rip = false;
	size_t at = 0;
	cs_insn *intel = NULL;

	for (uint8_t i = 0; i < d->op_count; i++)
		if (d->operands[i].type == X86_OP_REG)
			has_reg = true;
	snprintf(mn, mn_len, "%s", in->mnemonic);
	/* a register (or a branch) fixes the size: objdump writes no
	 * suffix, as Intel's mnemonic has none; but movzbl and its kin
	 * keep theirs, Intel's names differ */
	if ((has_reg || branch) && strncmp(in->mnemonic, "movz", 4) &&
	    strncmp(in->mnemonic, "movs", 4) &&
	    cs_disasm(x->cs_intel, code, in->size, in->address, 1, &intel) == 1) {
		snprintf(mn, mn_len, "%s", intel->mnemonic);
		cs_free(intel, 1);
	} else if (!d->op_count) {
		static const char *const bare[][2] = {
			{ "leaveq", "leave" }, { "pushfq", "pushf" }, { "popfq", "popf" },
			{ "retq", "ret" },
		};
		for (size_t i = 0; i < sizeof(bare) / sizeof(bare[0]); i++)
			if (!strcmp(mn, bare[i][0]))
				snprintf(mn, mn_len, "%s", bare[i][1]);
	}
	ops[0] = '\0';
	for (uint8_t i = 0; i < d->op_count; i++) {
		const cs_x86_op *op = &d->operands[i];

		if (i)
			at = put(ops, ops_len, at, ",");
		switch (op->type) {
		case X86_OP_REG:
			at = put(ops, ops_len, at, "%s%%%s", branch ? "*" : "",
				 cs_reg_name(x->cs, op->reg));
			break;
		case X86_OP_IMM: {
			uint64_t v = (uint64_t)op->imm;
			char named[256];

			if (branch) {
				if (name_addr(x, v, named, sizeof(named)))
					at = put(ops, ops_len, at, "%s", named);
				else
					at = put(ops, ops_len, at, "%" PRIx64, v);
				break;
			}
			if (op->size && op->size < 8)
				v &= (1ULL << (op->size * 8)) - 1;
			at = put(ops, ops_len, at, "$0x%" PRIx64, v);
			break;
		}
		case X86_OP_MEM: {
			const x86_op_mem *m = &op->mem;
			int mod = d->modrm >> 6;

			if (branch)
				at = put(ops, ops_len, at, "*");
			if (m->segment != X86_REG_INVALID)
				at = put(ops, ops_len, at, "%%%s:", cs_reg_name(x->cs, m->segment));
			if (m->disp || mod == 1 || mod == 2 ||
			    (m->base == X86_REG_INVALID))
				at = put_hex(ops, ops_len, at, m->disp);
			if (m->base != X86_REG_INVALID || m->index != X86_REG_INVALID) {
				at = put(ops, ops_len, at, "(");
				if (m->base != X86_REG_INVALID)
					at = put(ops, ops_len, at, "%%%s", cs_reg_name(x->cs, m->base));
				if (m->index != X86_REG_INVALID)
					at = put(ops, ops_len, at, ",%%%s,%d",
						 cs_reg_name(x->cs, m->index), m->scale);
				at = put(ops, ops_len, at, ")");
			}
			if (m->base == X86_REG_RIP) {
				rip = true;
				rip_target = in->address + in->size + (uint64_t)m->disp;
			}
			break;
		}
		default:
			break;
		}
	}
	if (rip) {
		char named[256];

		if (name_addr(x, rip_target, named, sizeof(named)))
			at = put(ops, ops_len, at, "        # %s", named);
		else
			at = put(ops, ops_len, at, "        # %" PRIx64, rip_target);
	}
}

/* ---- blocks ---- */

static void put_insn(struct asm_ctx *x, const cs_insn *in, const uint8_t *code,
		     const uint64_t *counts, bool sampled)
{
	char mn[64], ops[512];

	if (x->x86) {
		x86_text(x, in, code, mn, sizeof(mn), ops, sizeof(ops));
	} else {
		snprintf(mn, sizeof(mn), "%s", in->mnemonic);
		snprintf(ops, sizeof(ops), "%s", in->op_str);
	}
	if (sampled) {
		pp_annot_counts(x->buf, x->buf_len, x->a, counts, true);
		fprintf(x->out, "%s :", x->buf);
	} else {
		fputs(x->fill, x->out);
	}
	fprintf(x->out, "%*" PRIx64 ":\t", x->addr_width, in->address);
	if (ops[0])
		fprintf(x->out, "%-6s %s\n", mn, ops);
	else
		fprintf(x->out, "%s\n", mn);
}

/* The section holding vma: its bytes, name and extent. */
static bool find_section(Elf *elf, uint64_t vma, Elf_Data **data,
			 const char **name, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, sh) || sh->sh_type == SHT_NOBITS ||
		    !(sh->sh_flags & SHF_EXECINSTR))
			continue;
		if (vma < sh->sh_addr || vma >= sh->sh_addr + sh->sh_size)
			continue;
		*data = elf_getdata(scn, NULL);
		*name = elf_strptr(elf, shstrndx, sh->sh_name);
		return *data && *name;
	}
	return false;
}

/* objdump's address column: the section end's hex digits, less the
 * leading zeros it drops four at a time (8 for a small program) */
static int addr_width(const GElf_Shdr *sh, bool is64)
{
	char buf[32];
	int skip = 0, digits = is64 ? 16 : 8;

	snprintf(buf, sizeof(buf), "%0*" PRIx64, digits, sh->sh_addr + sh->sh_size);
	while (buf[skip] == '0')
		skip++;
	if (!buf[skip] && sh->sh_addr)
		skip = 0;
	if (skip)
		skip = (skip - 1) & -4;
	return digits - skip;
}

static const char *elf_format(Elf *elf)
{
	GElf_Ehdr eh;

	if (!gelf_getehdr(elf, &eh))
		return "unknown";
	switch (eh.e_machine) {
	case EM_X86_64:
		return eh.e_ident[EI_CLASS] == ELFCLASS64 ? "elf64-x86-64" : "elf32-x86-64";
	case EM_386:
		return "elf32-i386";
	case EM_AARCH64:
		return "elf64-littleaarch64";
	case EM_ARM:
		return "elf32-littlearm";
	default:
		return eh.e_ident[EI_CLASS] == ELFCLASS64 ? "elf64-unknown" : "elf32-unknown";
	}
}

/* objdump's opening lines for one run over the binary */
static void put_file_header(struct asm_ctx *x)
{
	fprintf(x->out, "%s\n%s%s:     file format %s\n%s\n%s\n", x->fill, x->fill,
		x->path, elf_format(x->elf), x->fill, x->fill);
}

static bool is64(Elf *elf)
{
	GElf_Ehdr eh;

	return gelf_getehdr(elf, &eh) && eh.e_ident[EI_CLASS] == ELFCLASS64;
}

/* One kept symbol: its header with its total, then its instructions. */
static void put_symbol(struct asm_ctx *x, size_t s)
{
	const struct pp_annot *a = x->a;
	const struct pp_entry *e = &a->v->entries[a->syms[s].entry];
	const struct pp_image *im = &a->p->images[e->image];
	const uint64_t *vmas = a->v->vmas[e->image];
	uint64_t start = e->sym->start, end = start + e->sym->size;
	uint64_t *counts = calloc(a->nc, sizeof(*counts));
	const char *secname;
	Elf_Data *data;
	GElf_Shdr sh;
	cs_insn *insn;
	size_t k = 0;

	if (!counts)
		return;
	if (!find_section(x->elf, start, &data, &secname, &sh)) {
		free(counts);
		return;
	}
	if (end > sh.sh_addr + sh.sh_size)
		end = sh.sh_addr + sh.sh_size;
	x->addr_width = addr_width(&sh, is64(x->elf));
	pp_annot_counts(x->buf, x->buf_len, a, e->counts, false);
	fprintf(x->out, "%0*" PRIx64 " <%s>: /* %s total: %s */\n",
		is64(x->elf) ? 16 : 8, start, e->name, e->name, x->buf);
	insn = cs_malloc(x->cs);
	if (!insn) {
		free(counts);
		return;
	}
	for (uint64_t pc = start; pc < end;) {
		const uint8_t *code = (const uint8_t *)data->d_buf + (pc - sh.sh_addr);
		const uint8_t *p = code;
		size_t size = end - pc;
		uint64_t addr = pc;
		bool sampled = false;

		if (pc - sh.sh_addr >= data->d_size)
			break;
		if (size > data->d_size - (pc - sh.sh_addr))
			size = data->d_size - (pc - sh.sh_addr);
		if (!cs_disasm_iter(x->cs, &p, &size, &addr, insn)) {
			/* objdump's "(bad)": one byte, then on */
			fprintf(x->out, "%s%*" PRIx64 ":\t(bad)\n", x->fill,
				x->addr_width, pc);
			pc++;
			continue;
		}
		show_source(x, pc);
		memset(counts, 0, a->nc * sizeof(*counts));
		/* samples inside an instruction count for it (IBS's are
		 * not aligned), as OProfile credits them */
		while (k < e->nr_addrs && vmas[e->addrs[k]] < pc)
			k++;
		while (k < e->nr_addrs && vmas[e->addrs[k]] < pc + insn->size) {
			for (size_t c = 0; c < a->nc; c++)
				counts[c] += im->counts[e->addrs[k] * a->nc + c];
			sampled = true;
			k++;
		}
		put_insn(x, insn, code, counts, sampled);
		pc += insn->size;
	}
	cs_free(insn, 1);
	free(counts);
}

static int cmp_samples(const void *xa, const void *xb, void *arg)
{
	const struct pp_annot *a = arg;
	const struct pp_entry *ea = &a->v->entries[a->syms[*(const size_t *)xa].entry];
	const struct pp_entry *eb = &a->v->entries[a->syms[*(const size_t *)xb].entry];

	if (ea->counts[0] != eb->counts[0])
		return ea->counts[0] > eb->counts[0] ? -1 : 1;
	return (ea->vma > eb->vma) - (ea->vma < eb->vma);
}

static bool above_threshold(const struct pp_annot *a, const struct pp_entry *e,
			    double threshold)
{
	for (size_t c = 0; c < a->nc; c++) {
		double r = a->total[c] ? (double)e->counts[c] / (double)a->total[c] : 0.0;

		if (r >= threshold / 100.0)
			return true;
	}
	return false;
}

static int open_cs(struct asm_ctx *x, const struct op_logger *lg)
{
	GElf_Ehdr eh;
	cs_arch arch;
	cs_mode mode;

	if (!gelf_getehdr(x->elf, &eh))
		return -ENOEXEC;
	switch (eh.e_machine) {
	case EM_X86_64:
		arch = CS_ARCH_X86;
		mode = eh.e_ident[EI_CLASS] == ELFCLASS64 ? CS_MODE_64 : CS_MODE_32;
		x->x86 = true;
		break;
	case EM_386:
		arch = CS_ARCH_X86;
		mode = CS_MODE_32;
		x->x86 = true;
		break;
	case EM_AARCH64:
		arch = CS_ARCH_ARM64;
		mode = CS_MODE_ARM;
		break;
	default:
		op_log(lg, OP_LOG_WARN, "cannot disassemble %s: machine %u is not "
		       "supported", x->path, eh.e_machine);
		return -ENOEXEC;
	}
	if (cs_open(arch, mode, &x->cs) != CS_ERR_OK)
		return -ENOMEM;
	cs_option(x->cs, CS_OPT_DETAIL, CS_OPT_ON);
	if (x->x86) {
		cs_option(x->cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
		if (cs_open(arch, mode, &x->cs_intel) != CS_ERR_OK) {
			cs_close(&x->cs);
			return -ENOMEM;
		}
	}
	return 0;
}

static void close_cs(struct asm_ctx *x)
{
	if (x->cs)
		cs_close(&x->cs);
	if (x->cs_intel)
		cs_close(&x->cs_intel);
	x->cs = x->cs_intel = 0;
}

/* One image: the info comment, then one objdump-like run per symbol, or
 * one over the whole image (address order) beyond MAX_BLOCKS symbols.
 * Returns the number of symbols shown. */
static size_t annotate_image(struct asm_ctx *x, size_t image, const char *name,
			     size_t *sel, const struct op_logger *lg)
{
	const struct pp_annot *a = x->a;
	size_t n = 0;
	Dwarf_Addr bias;
	const char *mainfile = NULL;

	for (size_t s = 0; s < a->nr_syms; s++) {
		const struct pp_entry *e = &a->v->entries[a->syms[s].entry];

		if (e->image == image && e->sym &&
		    above_threshold(a, e, x->o->threshold))
			sel[n++] = s;
	}
	if (!n)
		return 0;
	pp_annot_info(x->out, a, x->o);
	x->st = pp_symview_symtab(a->v, image);
	if (!x->st || !x->st->is_elf || !x->st->mod) {
		op_log(lg, OP_LOG_WARN, "cannot annotate %s: no binary to "
		       "disassemble -- ignoring", name);
		return n;
	}
	x->elf = dwfl_module_getelf(x->st->mod, &bias);
	dwfl_module_info(x->st->mod, NULL, NULL, NULL, NULL, NULL, &mainfile, NULL);
	x->path = mainfile ? mainfile : name;
	if (!x->elf || open_cs(x, lg))
		return n;
	if (n <= MAX_BLOCKS) {
		qsort_r(sel, n, sizeof(*sel), cmp_samples, (void *)a);
		for (size_t i = 0; i < n; i++) {
			const struct pp_entry *e = &a->v->entries[a->syms[sel[i]].entry];
			const char *secname;
			Elf_Data *data;
			GElf_Shdr sh;

			src_reset(x);
			put_file_header(x);
			if (find_section(x->elf, e->sym->start, &data, &secname, &sh))
				fprintf(x->out, "%sDisassembly of section %s:\n%s\n",
					x->fill, secname, x->fill);
			put_symbol(x, sel[i]);
		}
	} else {
		/* objdump over the whole image: the symbols in address order,
		 * a section's title when it changes */
		const char *last_sec = NULL;

		src_reset(x);
		put_file_header(x);
		for (size_t i = 0; i < n; i++) {
			const struct pp_entry *e = &a->v->entries[a->syms[sel[i]].entry];
			const char *secname;
			Elf_Data *data;
			GElf_Shdr sh;

			if (find_section(x->elf, e->sym->start, &data, &secname, &sh) &&
			    (!last_sec || strcmp(last_sec, secname))) {
				fprintf(x->out, "%sDisassembly of section %s:\n", x->fill,
					secname);
				last_sec = secname;
			}
			fprintf(x->out, "%s\n", x->fill);
			put_symbol(x, sel[i]);
		}
	}
	close_cs(x);
	return n;
}

static int cmp_names(const void *xa, const void *xb, void *arg)
{
	char **names = arg;

	return strcmp(names[*(const size_t *)xa], names[*(const size_t *)xb]);
}

int pp_annotate_assembly(FILE *out, struct pp_annot *a,
			 const struct pp_annot_opts *o,
			 const struct op_logger *lg)
{
	struct asm_ctx x = { .out = out, .a = a, .o = o };
	size_t ni = a->p->nr_images, shown = 0;
	size_t *order = malloc((ni ? ni : 1) * sizeof(*order));
	size_t *sel = malloc((a->nr_syms ? a->nr_syms : 1) * sizeof(*sel));
	int ret = 0;

	x.buf_len = a->nc * 32 + 16;
	x.buf = malloc(x.buf_len);
	x.fill = malloc(x.buf_len);
	if (!order || !sel || !x.buf || !x.fill) {
		ret = -ENOMEM;
		goto out;
	}
	pp_annot_fill(a, x.fill, x.buf_len);
	/* OProfile goes through the images by name */
	for (size_t i = 0; i < ni; i++)
		order[i] = i;
	qsort_r(order, ni, sizeof(*order), cmp_names, a->v->img_long);
	for (size_t i = 0; i < ni; i++)
		shown += annotate_image(&x, order[i], a->v->img_long[order[i]], sel, lg);
	if (!shown)
		ret = -ENODATA;
out:
	for (size_t i = 0; i < x.nr_files; i++) {
		for (size_t l = 0; l < x.files[i].nr_lines; l++)
			free(x.files[i].lines[l]);
		free(x.files[i].lines);
	}
	free(x.files);
	free(x.buf);
	free(x.fill);
	free(order);
	free(sel);
	return ret;
}
