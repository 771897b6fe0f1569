/*
 * test_netfs.c - the network file system detector (scopedb/netfs.h): the
 * f_type magic numbers of network and cluster file systems, and that a
 * local store, a store that does not exist yet and a PostgreSQL location
 * are not reported.
 */
#include "scopedb/netfs.h"
#include "testutil.h"

static void test_netfs_types(void **state)
{
	(void)state;
	assert_string_equal(netfs_type_name(0x6969UL), "nfs");
	assert_string_equal(netfs_type_name(0xFF534D42UL), "cifs");
	assert_string_equal(netfs_type_name(0xFE534D42UL), "smb2");
	assert_string_equal(netfs_type_name(0x517BUL), "smb");
	assert_string_equal(netfs_type_name(0x0BD00BD0UL), "lustre");
	assert_string_equal(netfs_type_name(0x47504653UL), "gpfs");
	assert_string_equal(netfs_type_name(0x65735546UL), "fuse");
	/* f_type sign-extended on ABIs where it is a signed 32-bit value */
	assert_string_equal(netfs_type_name((unsigned long)(long)(int32_t)0xFF534D42UL), "cifs");
	/* local file systems: ext4, xfs, btrfs, tmpfs, overlayfs */
	assert_null(netfs_type_name(0xEF53UL));
	assert_null(netfs_type_name(0x58465342UL));
	assert_null(netfs_type_name(0x9123683EUL));
	assert_null(netfs_type_name(0x01021994UL));
	assert_null(netfs_type_name(0x794C7630UL));
	assert_null(netfs_type_name(0));
}

static void test_netfs_store(void **state)
{
	(void)state;
	/* the test directory is local (a temporary directory) */
	assert_null(netfs_store(tu_path("missing.sqlite")));
	assert_null(netfs_store(tu_path(".")));
	assert_null(netfs_store("relative-missing.sqlite"));
	assert_null(netfs_store("/nonexistent-dir/x.sqlite"));
	assert_null(netfs_store(":memory:"));
	assert_null(netfs_store("postgresql://host/db"));
}

TU_MAIN(NULL, NULL, {cmocka_unit_test(test_netfs_types), cmocka_unit_test(test_netfs_store)})
