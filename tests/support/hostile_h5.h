/*
 * hostile_h5.h - writing profiles that try to make the reader read outside
 * the file or far more than it holds (issue 13).  See hostile_h5.c.
 */
#ifndef SCOPEDB_HOSTILE_H5_H
#define SCOPEDB_HOSTILE_H5_H

/*
 * Write the standard schema-3 profile to path, then make it hostile:
 *   external-storage  region_table/names stored in file aux (64 bytes)
 *   external-link     /region_table an external link to aux:/region_table
 *   soft-missing      events/durations a soft link to /nowhere/durations
 *   soft-outside      events/durations a soft link through /elsewhere, an
 *                     external link to aux:/events
 *   soft-inside       events/durations a soft link to a dataset of the file
 *                     (legitimate)
 *   soft-loop         events/durations and events/loop soft links to each
 *                     other
 *   vds-missing       events/durations a virtual dataset on aux (or
 *                     missing-source.h5 when aux is NULL)
 *   vds-self          events/durations a virtual dataset on itself
 *   filter            events/durations needs filter 32004 ("lz4")
 *   sparse            the event columns declare 2e8 events, no chunk written
 *   sparse-gzip       the same, gzip-compressed chunks
 *   unwritten         the same, contiguous and never written
 * Returns 0, or -1 on failure or an unknown kind.
 */
int hostile_h5_write(const char *kind, const char *path, const char *aux);

#endif
