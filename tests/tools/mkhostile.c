/*
 * mkhostile.c - write one hostile profile for e2e_hostile.sh:
 * "mkhostile KIND OUT.h5 [AUX]" (the kinds of tests/support/hostile_h5.h).
 */
#include <stdio.h>

#include "hostile_h5.h"

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 4) {
		fputs("usage: mkhostile KIND OUT.h5 [AUX]\n", stderr);
		return 2;
	}
	if (hostile_h5_write(argv[1], argv[2], argc > 3 ? argv[3] : NULL)) {
		fprintf(stderr, "mkhostile: cannot write %s '%s'\n", argv[1], argv[2]);
		return 1;
	}
	return 0;
}
