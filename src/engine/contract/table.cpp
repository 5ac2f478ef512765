#include "contract/table.hpp"

#include <cstdio>
#include <stdexcept>

namespace uringprobe {

std::string Value::to_string(bool exact) const {
    switch (kind) {
    case Kind::integer:
        return std::to_string(i);
    case Kind::real: {
        char buf[64];
        snprintf(buf, sizeof buf, exact ? "%.9g" : "%.3f", d);
        return buf;
    }
    case Kind::text:
        return s;
    default:
        return "";
    }
}

const char* sql_type(Value::Kind kind) {
    switch (kind) {
    case Value::Kind::integer:
        return "bigint";
    case Value::Kind::real:
        return "double precision";
    case Value::Kind::text:
        return "text";
    default:
        throw std::logic_error("a column of no kind");
    }
}

void Table::add(std::vector<Value> row) {
    if (row.size() != columns.size())
        throw std::logic_error("a row of " + std::to_string(row.size()) + " values for " +
                               std::to_string(columns.size()) + " columns");
    for (size_t c = 0; c < row.size(); ++c)
        if (row[c].kind != Value::Kind::null && row[c].kind != columns[c].kind)
            throw std::logic_error("column " + columns[c].name + " is " +
                                   sql_type(columns[c].kind) + ", given a " +
                                   sql_type(row[c].kind));
    rows.push_back(std::move(row));
}

} // namespace uringprobe
