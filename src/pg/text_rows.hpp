// Set-returning output for rows of text cells: the cells are copied into
// palloc'd memory inside run_guarded(), and the tuples are built afterwards,
// outside any C++ scope.
#pragma once

#include "postgres_headers.hpp"

#include <string>
#include <vector>

namespace uringprobe::pg {

struct TextRows {
    int nrows = 0;
    int ncols = 0;
    char** cells = nullptr; // nrows * ncols, row-major
};

// Inside run_guarded(): copy `rows` (each of `ncols` cells) into `out`.
void copy_text_rows(const std::vector<std::vector<std::string>>& rows, int ncols, TextRows* out);

// Outside run_guarded(): return `rows` as the function's result set.
void emit_text_rows(FunctionCallInfo fcinfo, const TextRows& rows);

} // namespace uringprobe::pg
