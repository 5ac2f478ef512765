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

// A column: its name and the kind of value it holds (any value may also be
// NULL). SQL declares it bigint, double precision or text (sql_type).
struct Column {
    std::string name;
    Value::Kind kind;
};
inline Column bigint_column(std::string name) {
    return {std::move(name), Value::Kind::integer};
}
inline Column real_column(std::string name) {
    return {std::move(name), Value::Kind::real};
}
inline Column text_column(std::string name) {
    return {std::move(name), Value::Kind::text};
}
// "bigint", "double precision" or "text".
const char* sql_type(Value::Kind kind);

struct Table {
    std::vector<Column> columns;
    std::vector<std::vector<Value>> rows;

    // Appends a row: a value per column, each NULL or of its column's kind
    // (std::logic_error naming the column otherwise).
    void add(std::vector<Value> row);
};

} // namespace uringprobe
