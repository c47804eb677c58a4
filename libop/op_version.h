/* --version, in OProfile's shape, which its manuals show and scripts
 * parse: "NAME: opsampler VERSION compiled on DATE TIME", NAME being how
 * the program was called. One line for every command. */
#ifndef OP_VERSION_H
#define OP_VERSION_H

#include <stdio.h>

#define op_print_version(argv0) \
	printf("%s: " PACKAGE " " VERSION " compiled on " __DATE__ " " __TIME__ "\n", (argv0))

#endif /* OP_VERSION_H */
