#include "cli_output.hpp"

#include "contract/error.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <fstream>
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

std::vector<std::map<std::string, std::string>> read_tsv_file(const std::string& path) {
    std::ifstream in(path);
    if (!in)
        throw SysError(errno, "open " + path);
    auto fields = [](const std::string& line) {
        std::vector<std::string> f;
        size_t start = 0;
        for (size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1)
            f.push_back(line.substr(start, tab - start));
        f.push_back(line.substr(start));
        return f;
    };
    std::string line;
    std::vector<std::map<std::string, std::string>> rows;
    if (!std::getline(in, line))
        return rows;
    const std::vector<std::string> head = fields(line);
    for (int n = 2; std::getline(in, line); ++n) {
        const std::vector<std::string> f = fields(line);
        if (f.size() > head.size())
            throw InvalidArgument(path + ":" + std::to_string(n) + ": " + std::to_string(f.size()) +
                                  " fields, the header names " + std::to_string(head.size()));
        std::map<std::string, std::string> row;
        for (size_t i = 0; i < head.size(); ++i)
            row[head[i]] = i < f.size() ? f[i] : "";
        rows.push_back(std::move(row));
    }
    return rows;
}

} // namespace uringprobe::cli
