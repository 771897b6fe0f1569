/*
 * mkhostile.c - write one hostile profile for e2e_hostile.sh:
 * "mkhostile KIND OUT.h5 [AUX]" (the kinds of tests/support/hostile_h5.h),
 * "mkhostile json-KIND OUT" (the JSON cases of hostile_json.h), and
 * "mkhostile --json-cases": one line per JSON case, "KIND GZIP EXPECTED".
 */
#include <stdio.h>
#include <string.h>

#include "hostile_h5.h"
#include "hostile_json.h"

int main(int argc, char **argv)
{
	size_t i;

	if (argc == 2 && !strcmp(argv[1], "--json-cases")) {
		for (i = 0; i < hostile_json_ncases; i++)
			printf("%s %d %s\n", hostile_json_cases[i].kind, hostile_json_cases[i].gzip,
			       hostile_json_cases[i].expect);
		return 0;
	}
	if (argc == 3 && !strncmp(argv[1], "json-", 5)) {
		if (hostile_json_write(argv[1] + 5, argv[2])) {
			fprintf(stderr, "mkhostile: cannot write %s '%s'\n", argv[1], argv[2]);
			return 1;
		}
		return 0;
	}
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
