/*
 * cmd_untag.c - "scopedb untag RUN TAG...": remove tags of a stored run.
 * The option parsing and the transaction are shared with "scopedb tag"
 * (cmd_tag_change() in cmd_tag.c).
 */
#include "cmd.h"

int cmd_untag(int argc, char **argv)
{
	return cmd_tag_change(argc, argv, 0);
}
