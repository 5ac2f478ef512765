#include "cli_output.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace uringprobe::cli {

void print_table(const Table& t, bool tsv) {
    std::vector<size_t> shown;
    for (size_t c = 0; c < t.columns.size(); ++c) {
        const std::string& name = t.columns[c].name;
        const std::string suffix = "_histogram";
        if (tsv || name.size() < suffix.size() ||
            name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
            shown.push_back(c);
    }
    std::vector<std::vector<std::string>> cells;
    cells.emplace_back();
    for (size_t c : shown)
        cells.back().push_back(t.columns[c].name);
    for (const auto& row : t.rows) {
        std::vector<std::string> line;
        for (size_t c : shown)
            line.push_back(row[c].to_string(tsv));
        cells.push_back(std::move(line));
    }
    if (tsv) {
        for (const auto& line : cells) {
            for (size_t c = 0; c < line.size(); ++c)
                std::printf("%s%s", c ? "\t" : "", line[c].c_str());
            std::printf("\n");
        }
        return;
    }
    // Aligned columns; the last column is left as long as it is.
    std::vector<size_t> width(shown.size(), 0);
    for (const auto& line : cells)
        for (size_t c = 0; c + 1 < line.size(); ++c)
            width[c] = std::max(width[c], line[c].size());
    for (const auto& line : cells) {
        for (size_t c = 0; c < line.size(); ++c)
            std::printf(c + 1 < line.size() ? "%-*s  " : "%-*s\n", int(width[c]), line[c].c_str());
    }
}

} // namespace uringprobe::cli
