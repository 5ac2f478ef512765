// An experiment's result as named, typed columns: what the SQL functions
// return as rows and what uringprobe-cli prints, from one definition.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace uringprobe {

struct Value {
    enum class Kind { null, integer, real, text };
    Kind kind = Kind::null;
    std::int64_t i = 0;
    double d = 0;
    std::string s;

    static Value integer(std::int64_t v) { return {Kind::integer, v, 0, {}}; }
    static Value real(double v) { return {Kind::real, 0, v, {}}; }
    static Value text(std::string v) { return {Kind::text, 0, 0, std::move(v)}; }
    static Value null() { return {}; }
    // As printed by the CLI: reals to 3 decimals for reading, or (exact)
    // with 9 significant digits, for the benchmarks that compare them.
    std::string to_string(bool exact = false) const;
};

struct Table {
    std::vector<std::string> columns;
    std::vector<std::vector<Value>> rows;
};

} // namespace uringprobe
