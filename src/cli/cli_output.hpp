// Printing a result table: aligned for a person, or TSV for a program.
#pragma once

#include "contract/table.hpp"

namespace uringprobe::cli {

// tsv: every column, exact; table: aligned, without the raw *_histogram
// columns.
void print_table(const Table& t, bool tsv);

} // namespace uringprobe::cli
