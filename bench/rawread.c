/*
 * rawread.c - the raw read floor of the benchmarks: reads the event columns
 * of a columnar profile (schema 2 or 3, plus gpu_durations when present)
 * with plain libhdf5 and does nothing else, the fastest way h5prof_read()
 * knows: windows of 1 << 16 events per column starting on chunk boundaries
 * (the bench files have 16,384-event chunks) and no raw data chunk cache,
 * so that libhdf5 reads each chunk straight into the buffer.  Ingest time
 * is reported as a multiple of this program's time on the same file.
 *
 * This is the reference, so it calls H5* directly; nothing else under bench/
 * does.  It prints the number of events and a checksum (so the reads cannot
 * be optimised away).
 */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <hdf5.h>

#define WINDOW ((hsize_t)1 << 16)

static const char *const columns[][3] = {
    {"/events/start_deltas", "/events/durations", "/events/gpu_durations"},
    {"/events/start_times", "/events/end_times", "/events/gpu_durations"},
};

int main(int argc, char **argv)
{
	hid_t fapl, f, d[3] = {H5I_INVALID_HID, H5I_INVALID_HID, H5I_INVALID_HID};
	hid_t fs[3] = {H5I_INVALID_HID, H5I_INVALID_HID, H5I_INVALID_HID}, mem;
	hsize_t n = 0, pos, count;
	int64_t *buf;
	uint64_t sum = 0;
	int k, set;

	if (argc != 2) {
		fputs("usage: rawread FILE.h5\n", stderr);
		return 2;
	}
	/* Without a chunk cache libhdf5 allocates and frees a buffer per
	 * compressed chunk; in this small program glibc would then give the
	 * heap top back and fault it in again for every chunk (124k page
	 * faults, 2.7x slower on the gzip file).  Keep the floor a floor. */
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	fapl = H5Pcreate(H5P_FILE_ACCESS);
	H5Pset_file_locking(fapl, 0, 1);
	H5Pset_cache(fapl, 0, 0, 0, 0.75);
	f = H5Fopen(argv[1], H5F_ACC_RDONLY, fapl);
	H5Pclose(fapl);
	if (f < 0) {
		fprintf(stderr, "rawread: cannot open '%s'\n", argv[1]);
		return 2;
	}
	set = H5Lexists(f, "/events/start_deltas", H5P_DEFAULT) > 0 ? 0 : 1;
	for (k = 0; k < 3; k++) {
		if (k == 2 && H5Lexists(f, columns[set][k], H5P_DEFAULT) <= 0)
			continue;
		d[k] = H5Dopen2(f, columns[set][k], H5P_DEFAULT);
		fs[k] = d[k] >= 0 ? H5Dget_space(d[k]) : H5I_INVALID_HID;
		if (fs[k] < 0) {
			fprintf(stderr, "rawread: '%s' has no column '%s'\n", argv[1],
				columns[set][k]);
			return 2;
		}
		if (k == 0)
			H5Sget_simple_extent_dims(fs[k], &n, NULL);
	}
	buf = malloc((size_t)WINDOW * sizeof(*buf));
	if (!buf)
		return 2;
	for (pos = 0; pos < n; pos += count) {
		count = n - pos < WINDOW ? n - pos : WINDOW;
		mem = H5Screate_simple(1, &count, NULL);
		for (k = 0; k < 3; k++) {
			if (d[k] < 0)
				continue;
			if (H5Sselect_hyperslab(fs[k], H5S_SELECT_SET, &pos, NULL, &count, NULL) <
				0 ||
			    H5Dread(d[k], H5T_NATIVE_INT64, mem, fs[k], H5P_DEFAULT, buf) < 0) {
				fprintf(stderr, "rawread: cannot read '%s'\n", argv[1]);
				return 2;
			}
			sum += (uint64_t)buf[0] + (uint64_t)buf[count - 1];
		}
		H5Sclose(mem);
	}
	for (k = 0; k < 3; k++) {
		if (d[k] >= 0) {
			H5Sclose(fs[k]);
			H5Dclose(d[k]);
		}
	}
	H5Fclose(f);
	free(buf);
	printf("%llu events, checksum %llu\n", (unsigned long long)n, (unsigned long long)sum);
	return 0;
}
