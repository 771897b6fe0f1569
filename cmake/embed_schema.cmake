# Turn schema/NNNN_name.sql (FILES, sorted) into a C file OUT defining
#   const char *const schema_sql[]; const int schema_sql_count;
# Migration i (0-based) brings a store from user_version i to i + 1.
set(body "/* Generated from schema/NNNN_name.sql by cmake/embed_schema.cmake. */\n")
string(APPEND body "#include \"store/sqlite/schema_sql.h\"\n\n")
set(list "")
set(n 0)
foreach(f IN LISTS FILES)
	file(READ ${f} hex HEX)
	string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
	string(APPEND body "static const char schema_${n}[] = {${hex} 0};\n")
	string(APPEND list "\tschema_${n},\n")
	math(EXPR n "${n} + 1")
endforeach()
string(APPEND body "\nconst char *const schema_sql[] = {\n${list}\tNULL\n};\n")
string(APPEND body "const int schema_sql_count = ${n};\n")
file(WRITE ${OUT}.tmp "${body}")
configure_file(${OUT}.tmp ${OUT} COPYONLY)
