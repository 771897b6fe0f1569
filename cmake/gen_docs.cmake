# Generate the man pages and the shell completion scripts from the built
# scopedb (run at build time by the scopedb_docs target; the option
# declarations of the binary are their only source):
#   OUT/man1/scopedb.1, OUT/man1/scopedb-COMMAND.1 (one per listed command)
#   OUT/completion/scopedb   (bash)    OUT/completion/_scopedb   (zsh)
# Usage: cmake -DSCOPEDB=path/to/scopedb -DOUT=dir -P gen_docs.cmake
foreach(var SCOPEDB OUT)
	if(NOT ${var})
		message(FATAL_ERROR "gen_docs.cmake: set -D${var}=...")
	endif()
endforeach()

function(scopedb_run out)
	execute_process(COMMAND ${SCOPEDB} ${ARGN} OUTPUT_FILE ${out}.tmp
		RESULT_VARIABLE rc ERROR_VARIABLE err)
	if(NOT rc EQUAL 0)
		message(FATAL_ERROR "gen_docs.cmake: scopedb ${ARGN} failed (${rc}): ${err}")
	endif()
	file(RENAME ${out}.tmp ${out})
endfunction()

file(REMOVE_RECURSE ${OUT}/man1 ${OUT}/completion)
file(MAKE_DIRECTORY ${OUT}/man1 ${OUT}/completion)
execute_process(COMMAND ${SCOPEDB} completion names command OUTPUT_VARIABLE commands
	RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR commands STREQUAL "")
	message(FATAL_ERROR "gen_docs.cmake: scopedb completion names command failed (${rc})")
endif()
string(STRIP "${commands}" commands)
string(REPLACE "\n" ";" commands "${commands}")
scopedb_run(${OUT}/man1/scopedb.1 help --man)
foreach(cmd IN LISTS commands)
	scopedb_run(${OUT}/man1/scopedb-${cmd}.1 help --man ${cmd})
endforeach()
scopedb_run(${OUT}/completion/scopedb completion bash)
scopedb_run(${OUT}/completion/_scopedb completion zsh)
file(TOUCH ${OUT}/stamp)
