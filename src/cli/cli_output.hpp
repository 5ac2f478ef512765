// Printing a result table: aligned for a person, or TSV for a program.
#pragma once

#include "contract/table.hpp"

#include <map>
#include <string>
#include <vector>

namespace uringprobe::cli {

// tsv: every column, exact; table: aligned, without the raw *_histogram
// columns.
void print_table(const Table& t, bool tsv);

// A TSV file as print_table writes it (a header line, then a row per
// line), each row by column name; SysError where it cannot be read,
// InvalidArgument for a row of more fields than the header has.
std::vector<std::map<std::string, std::string>> read_tsv_file(const std::string& path);

} // namespace uringprobe::cli
