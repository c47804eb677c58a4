/* pp_mksession SESSION_DIR [NAME] < SCRIPT: writes sample files into
 * samples/NAME (default current) (through odb and
 * op_names, as the daemon does) for opreport's golden tests and benchmark.
 * Offsets come from the binaries' own symbols (read here with libelf, apart
 * from opreport's libdwfl code), so no test hard-codes an address.
 *
 * Script lines ('#' comments):
 *   header CPU_TYPE MHZ                    header fields of later files
 *   file IMG DEP EVENT COUNT UM TGID TID CPU
 *        IMG/DEP: f:/abs/path | k:NAME | a:NAME:TGID:START:END (hex)
 *        TGID/TID/CPU: a number or "all"
 *   cgfile IMG DEP CALLEE EVENT COUNT UM TGID TID CPU
 *                               the arc file from IMG to CALLEE ({cg})
 *   arc END END N               add N to the arc between two ends, each
 *        ELF:NAME+DELTA, k:KALLSYMS:NAME+DELTA or 0xOFFSET
 *   sym ELF NAME DELTA N        add N at the file offset of NAME + DELTA
 *   ksym KALLSYMS NAME DELTA N  add N at NAME - _text + DELTA
 *   off KEY N                   add N at KEY (hex)
 *   spread ELF NKEYS NSAMPLES SEED   NSAMPLES over NKEYS addresses inside
 *                               the function symbols of ELF (benchmark)
 *   stat NAME VALUE             samples/current/stats/NAME
 *   mtime SECONDS               override the binary mtime of later files
 *   sums                        write the integrity record of the files
 *                               written so far (as the daemon does at stop)
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "odb.h"
#include "op_names.h"
#include "op_sums.h"

static int die(int line, const char *msg, const char *arg)
{
	fprintf(stderr, "pp_mksession: line %d: %s%s%s\n", line, msg,
		arg ? ": " : "", arg ? arg : "");
	exit(2);
}

static int mkdirs(const char *path)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

/* Create (or open) the sample file at path with its header filled in. */
static void open_sample_file(odb_t *db, int lineno, const char *path,
			     unsigned int cpu_type, double mhz, unsigned long count,
			     unsigned int unit_mask, bool is_kernel)
{
	mkdirs(path);
	if (odb_open(db, NULL, path, ODB_RDWR))
		die(lineno, "cannot open", path);
	db->header->cpu_type = cpu_type;
	db->header->cpu_speed = mhz;
	db->header->ctr_count = (uint32_t)count;
	db->header->ctr_um = unit_mask;
	db->header->is_kernel = is_kernel;
}

static int parse_img(const char *s, struct op_img *img)
{
	char name[1024];
	int tgid;
	unsigned long long start, end;

	memset(img, 0, sizeof(*img));
	if (!strncmp(s, "f:", 2)) {
		img->kind = OP_IMG_FILE;
		img->path = strdup(s + 2);
	} else if (!strncmp(s, "k:", 2)) {
		img->kind = OP_IMG_KERN;
		img->path = strdup(s + 2);
	} else if (sscanf(s, "a:%1023[^:]:%d:%llx:%llx", name, &tgid, &start,
			  &end) == 4) {
		img->kind = OP_IMG_ANON;
		img->path = strdup(name);
		img->anon_tgid = tgid;
		img->anon_start = start;
		img->anon_end = end;
	} else {
		return -EINVAL;
	}
	return 0;
}

static int parse_field(const char *s)
{
	return strcmp(s, "all") ? atoi(s) : OP_SF_ALL;
}

/* File offset of symbol name in an ELF file, through its PT_LOAD headers. */
static int elf_sym_offset(const char *path, const char *name, uint64_t *off,
			  uint64_t *size)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t nph;
	int found = 0;
	uint64_t vaddr = 0;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(d, (int)i, &sym))
				continue;
			n = elf_strptr(e, sh.sh_link, sym.st_name);
			if (n && !strcmp(n, name) && sym.st_value) {
				vaddr = sym.st_value;
				*size = sym.st_size;
				found = 1;
				break;
			}
		}
		if (found)
			break;
	}
	if (found && !elf_getphdrnum(e, &nph)) {
		found = 0;
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
				*off = vaddr - ph.p_vaddr + ph.p_offset;
				found = 1;
				break;
			}
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return found ? 0 : -ENOENT;
}

/* Every function symbol's (file offset, size) in an ELF file. */
static size_t elf_funcs(const char *path, uint64_t **offs, uint64_t **sizes)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t n = 0, cap = 0, nph = 0;
	GElf_Phdr phs[64];
	size_t nload = 0;

	*offs = NULL;
	*sizes = NULL;
	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && !elf_getphdrnum(e, &nph))
		for (size_t i = 0; i < nph && nload < 64; i++)
			if (gelf_getphdr(e, (int)i, &phs[nload]) &&
			    phs[nload].p_type == PT_LOAD)
				nload++;
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;

			if (!gelf_getsym(d, (int)i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    !sym.st_value || sym.st_size < 4)
				continue;
			for (size_t k = 0; k < nload; k++) {
				if (sym.st_value < phs[k].p_vaddr ||
				    sym.st_value >= phs[k].p_vaddr + phs[k].p_filesz)
					continue;
				if (n == cap) {
					cap = cap ? cap * 2 : 1024;
					*offs = realloc(*offs, cap * sizeof(**offs));
					*sizes = realloc(*sizes, cap * sizeof(**sizes));
				}
				(*offs)[n] = sym.st_value - phs[k].p_vaddr + phs[k].p_offset;
				(*sizes)[n] = sym.st_size;
				n++;
				break;
			}
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return n;
}

static int ksym_offset(const char *path, const char *name, uint64_t *off)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	unsigned long long text = 0, want = 0;
	int have_text = 0, have = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char t, n[512];

		if (sscanf(line, "%llx %c %511s", &a, &t, n) != 3)
			continue;
		if (!strcmp(n, "_text")) {
			text = a;
			have_text = 1;
		}
		if (!strcmp(n, name) && !have) {
			want = a;
			have = 1;
		}
	}
	fclose(f);
	if (!have || !have_text)
		return -ENOENT;
	*off = want - text;
	return 0;
}

/* One end of an arc: ELF:NAME+DELTA, k:KALLSYMS:NAME+DELTA or 0xOFF. */
static int arc_end(const char *spec, uint64_t *off)
{
	char buf[2048], *name, *plus;
	uint64_t size = 0, delta = 0;
	int kern = !strncmp(spec, "k:", 2);

	if (!strncmp(spec, "0x", 2)) {
		*off = strtoull(spec, NULL, 16);
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", spec + (kern ? 2 : 0));
	name = strrchr(buf, ':');
	if (!name)
		return -EINVAL;
	*name++ = '\0';
	plus = strchr(name, '+');
	if (plus) {
		*plus++ = '\0';
		delta = strtoull(plus, NULL, 0);
	}
	if (kern ? ksym_offset(buf, name, off) : elf_sym_offset(buf, name, off, &size))
		return -ENOENT;
	*off += delta;
	return 0;
}

/* xorshift: the benchmark's addresses, reproducible from a seed */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

int main(int argc, char **argv)
{
	char line[4096], dir[4096];
	odb_t db = { .fd = -1 };
	bool open_db = false;
	unsigned int cpu_type = ODB_CPU_TIMER_INT;
	double mhz = 0;
	long long mtime_override = -1;
	int lineno = 0;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: pp_mksession SESSION_DIR [NAME] < SCRIPT\n");
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s/samples/%s/", argv[1],
		 argc == 3 ? argv[2] : "current");
	if (mkdirs(dir))
		return die(0, "cannot create", dir);
	while (fgets(line, sizeof(line), stdin)) {
		char a[6][1024];
		int n;

		lineno++;
		n = sscanf(line, "%1023s %1023s %1023s %1023s %1023s %1023s",
			   a[0], a[1], a[2], a[3], a[4], a[5]);
		if (n <= 0 || a[0][0] == '#')
			continue;
		if (!strcmp(a[0], "header") && n == 3) {
			cpu_type = (unsigned)atoi(a[1]);
			mhz = atof(a[2]);
		} else if (!strcmp(a[0], "mtime") && n == 2) {
			mtime_override = atoll(a[1]);
		} else if (!strcmp(a[0], "file")) {
			char f[9][1024], path[8192], *rel;
			struct op_sfname sf;
			struct stat st;

			if (sscanf(line, "file %1023s %1023s %1023s %1023s %1023s %1023s %1023s %1023s",
				   f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]) != 8)
				die(lineno, "file needs 8 fields", NULL);
			if (open_db)
				odb_close(&db);
			memset(&sf, 0, sizeof(sf));
			if (parse_img(f[0], &sf.image) || parse_img(f[1], &sf.dep))
				die(lineno, "bad image", f[0]);
			sf.event = strdup(f[2]);
			sf.count = strtoul(f[3], NULL, 0);
			sf.unit_mask = (unsigned)strtoul(f[4], NULL, 0);
			sf.tgid = parse_field(f[5]);
			sf.tid = parse_field(f[6]);
			sf.cpu = parse_field(f[7]);
			rel = op_sfname_build(&sf);
			if (!rel)
				die(lineno, "cannot name", f[0]);
			snprintf(path, sizeof(path), "%s%s", dir, rel);
			open_sample_file(&db, lineno, path, cpu_type, mhz, sf.count,
					 sf.unit_mask, sf.image.kind == OP_IMG_KERN);
			open_db = true;
			if (mtime_override >= 0)
				db.header->mtime = (uint64_t)mtime_override;
			else if (sf.image.kind == OP_IMG_FILE && !stat(sf.image.path, &st))
				db.header->mtime = (uint64_t)st.st_mtime;
			if (sf.image.kind == OP_IMG_ANON)
				db.header->anon_start = sf.image.anon_start;
			free(rel);
			op_sfname_release(&sf);
		} else if (!strcmp(a[0], "cgfile")) {
			char f[9][1024], path[8192], *rel;
			struct op_sfname sf;

			if (sscanf(line, "cgfile %1023s %1023s %1023s %1023s %1023s %1023s %1023s %1023s %1023s",
				   f[0], f[1], f[8], f[2], f[3], f[4], f[5], f[6], f[7]) != 9)
				die(lineno, "cgfile needs 9 fields", NULL);
			if (open_db)
				odb_close(&db);
			memset(&sf, 0, sizeof(sf));
			if (parse_img(f[0], &sf.image) || parse_img(f[1], &sf.dep) ||
			    parse_img(f[8], &sf.cg))
				die(lineno, "bad image", f[0]);
			sf.event = strdup(f[2]);
			sf.count = strtoul(f[3], NULL, 0);
			sf.unit_mask = (unsigned)strtoul(f[4], NULL, 0);
			sf.tgid = parse_field(f[5]);
			sf.tid = parse_field(f[6]);
			sf.cpu = parse_field(f[7]);
			rel = op_sfname_build(&sf);
			if (!rel)
				die(lineno, "cannot name", f[0]);
			snprintf(path, sizeof(path), "%s%s", dir, rel);
			open_sample_file(&db, lineno, path, cpu_type, mhz, sf.count,
					 sf.unit_mask, sf.image.kind == OP_IMG_KERN);
			open_db = true;
			db.header->cg_to_is_kernel = sf.cg.kind == OP_IMG_KERN;
			if (sf.image.kind == OP_IMG_ANON)
				db.header->anon_start = sf.image.anon_start;
			if (sf.cg.kind == OP_IMG_ANON)
				db.header->cg_to_anon_start = sf.cg.anon_start;
			free(rel);
			op_sfname_release(&sf);
		} else if (!strcmp(a[0], "arc") && n == 4) {
			uint64_t from, to;

			if (!open_db || arc_end(a[1], &from) || arc_end(a[2], &to))
				die(lineno, "bad arc end", a[1]);
			if (odb_add(&db, from << 32 | (to & 0xffffffffu),
				    (uint32_t)strtoul(a[3], NULL, 0)))
				die(lineno, "odb_add failed", NULL);
		} else if (!strcmp(a[0], "sym") && n == 5) {
			uint64_t off = 0, size = 0;

			if (!open_db)
				die(lineno, "no file", NULL);
			if (elf_sym_offset(a[1], a[2], &off, &size))
				die(lineno, "no such symbol", a[2]);
			if (odb_add(&db, off + strtoull(a[3], NULL, 0),
				    (uint32_t)strtoul(a[4], NULL, 0)))
				die(lineno, "odb_add failed", NULL);
		} else if (!strcmp(a[0], "ksym") && n == 5) {
			uint64_t off = 0;

			if (!open_db || ksym_offset(a[1], a[2], &off))
				die(lineno, "no such kernel symbol", a[2]);
			if (odb_add(&db, off + strtoull(a[3], NULL, 0),
				    (uint32_t)strtoul(a[4], NULL, 0)))
				die(lineno, "odb_add failed", NULL);
		} else if (!strcmp(a[0], "off") && n == 3) {
			if (!open_db || odb_add(&db, strtoull(a[1], NULL, 16),
						(uint32_t)strtoul(a[2], NULL, 0)))
				die(lineno, "odb_add failed", NULL);
		} else if (!strcmp(a[0], "spread") && n == 5) {
			uint64_t *offs, *sizes, seed = strtoull(a[4], NULL, 0) | 1;
			size_t nf = elf_funcs(a[1], &offs, &sizes);
			unsigned long nkeys = strtoul(a[2], NULL, 0);
			unsigned long long nsamples = strtoull(a[3], NULL, 0), left;

			if (!open_db || !nf || !nkeys)
				die(lineno, "spread: no functions in", a[1]);
			left = nsamples;
			for (unsigned long k = 0; k < nkeys && left; k++) {
				size_t fi = rnd(&seed) % nf;
				uint64_t key = offs[fi] + rnd(&seed) % sizes[fi];
				unsigned long long cnt = k + 1 == nkeys ? left :
					(nsamples / nkeys) / 2 + rnd(&seed) % (nsamples / nkeys + 1);

				if (cnt > left)
					cnt = left;
				left -= cnt;
				while (cnt) {
					uint32_t c = cnt > 0x7fffffff ? 0x7fffffff : (uint32_t)cnt;

					if (odb_add(&db, key, c))
						die(lineno, "odb_add failed", NULL);
					cnt -= c;
				}
			}
			free(offs);
			free(sizes);
		} else if (!strcmp(a[0], "stat") && n == 3) {
			char path[8192];
			FILE *f;

			snprintf(path, sizeof(path), "%sstats/%s", dir, a[1]);
			mkdirs(path);
			f = fopen(path, "w");
			if (!f)
				die(lineno, "cannot write", path);
			fprintf(f, "%s\n", a[2]);
			fclose(f);
		} else if (!strcmp(a[0], "sums") && n == 1) {
			if (open_db)
				odb_close(&db);
			open_db = false;
			dir[strlen(dir) - 1] = '\0';
			if (op_sums_write(NULL, dir, NULL))
				die(lineno, "cannot write the integrity record in", dir);
			strcat(dir, "/");
		} else {
			die(lineno, "bad line", a[0]);
		}
	}
	if (open_db)
		odb_close(&db);
	return 0;
}
