/*
 * formats.h - the profile formats scopedb reads, in the order they are
 * asked whether a file is theirs (profile.c): one PROFILE_FORMAT(NAME) line
 * each, NAME's table being the struct profile_format NAME_profile_format of
 * profile.c.  HDF5 claims every file no other format claims and stays last
 * (its reader tells an HDF5 file by its signature).
 */
PROFILE_FORMAT(json)
PROFILE_FORMAT(hdf5)
