/*
 * cmd_version.c - "scopedb version" (also "scopedb --version" and
 * "scopedb -V", handled by main.c): print "scopedb VERSION" on stdout,
 * VERSION being the project version of CMakeLists.txt.
 */
#include <stdio.h>

#include "cmd.h"
#include "cli/cli.h"

const struct opt_cmd cmd_version_usage = {
    .name = "version",
    .summary = "print the version of scopedb",
};

int cmd_version(int argc, char **argv)
{
	const struct opt opts[] = {OPT_END()};
	int code = CLI_EXIT_ERROR;

	if (opt_parse(&cmd_version_usage, opts, argc, argv, &code) < 0)
		return code;
	printf("scopedb %s\n", SCOPEDB_VERSION);
	return cli_finish(CLI_EXIT_OK);
}
