// An experiment's parameters as one table: each row says a parameter's
// name, SQL type, default, range and help, and how it is stored in the
// experiment's Params struct. From that one table come the struct's
// defaults, the range checks the engine makes for SQL and the CLI alike,
// the CLI's options and its usage text, and `uringprobe-cli params`, which
// a test holds against the install script's declarations.
#pragma once

#include "contract/params.hpp"

#include <climits>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace uringprobe {

// seconds: SQL's interval, a number of seconds (fractions allowed) on the
// command line. relation: SQL's regclass (an oid in ParamValue::i), a
// parameter of SQL only (the command line names files instead).
enum class ParamType { integer, bigint, boolean, text, seconds, relation };

// A parameter's value as SQL or the command line gave it.
struct ParamValue {
    bool null = false;
    long long i = 0; // integer, bigint, relation
    bool b = false;  // boolean
    std::string s;   // text
    double seconds = 0;
};

// What a parameter is, independent of where it is stored. Made by the
// builders below, refined by the chained setters.
struct Param {
    std::string name; // as SQL names it; the CLI's option is --name-with-dashes
    ParamType type = ParamType::integer;
    std::string default_sql;    // as SQL declares it: 128, 'both', false, NULL
    long long min = 0, max = 0; // numbers: the range the engine checks
    std::string cap;            // a setting that replaces max in a server, lower or higher
                                // (max is the setting's default: caps.hpp)
    bool power_of_two = false;  // numbers: also a power of two
    bool checked = true;        // numbers: false where the experiment checks the range
                                // itself (it depends on another parameter)
    std::string choices;        // text: the names allowed, "a|b|c" (usage and docs)
    std::string cli;            // the CLI's option where it differs; booleans: the
                                // option sets the opposite of the default
    std::string cli_help;       // its help, where it differs
    std::string help;
    std::string metavar;     // text, the CLI: the value's name in the usage ("": NAME)
    bool repeatable = false; // text, the CLI: each use of the option adds a value
    bool in_sql = true;      // false: an option of the CLI only (the SQL function reads
                             // the server's own value)
    std::string sql_default; // what SQL declares where it differs from default_sql ("": the
                             // same), e.g. NULL for the server's own value

    Param& capped_by(const char* setting) {
        cap = setting;
        return *this;
    }
    Param& powers_of_two() {
        power_of_two = true;
        return *this;
    }
    Param& range_checked_by_experiment() {
        checked = false;
        return *this;
    }
    Param& cli_only() {
        in_sql = false;
        return *this;
    }
    Param& cli_option(const char* option, const char* its_help) {
        cli = option;
        cli_help = its_help;
        return *this;
    }

    // "--name-with-dashes", or `cli`.
    std::string option() const;
    Param& sql_defaults_to(const char* value) {
        sql_default = value;
        return *this;
    }
    // The default the SQL function declares.
    const std::string& sql_declared_default() const {
        return sql_default.empty() ? default_sql : sql_default;
    }

    // SQL's type name: integer, bigint, boolean, text, interval.
    const char* sql_type() const;
    // The default as a value (NULL, 'text', true/false, a number).
    ParamValue default_value() const;
    // "between 1 and 4096 (uringprobe.max_rings)", with `max_now` as max.
    std::string range_text(long long max_now) const;
};

// A server's or the CLI's caps: setting name -> value; a setting not
// given keeps its default (the parameter's max).
using Caps = std::map<std::string, long long>;

template <typename P> struct ParamRow {
    Param param;
    void (*set)(P&, const ParamValue&);
    long long (*get)(const P&); // numbers: the value checked against the range
};

template <typename P> using ParamTable = std::vector<ParamRow<P>>;

// Every parameter set to its default.
template <typename P> void set_defaults(const ParamTable<P>& table, P& p) {
    for (const auto& row : table)
        row.set(p, row.param.default_value());
}

// Sets parameter `name` (InvalidArgument for one the table lacks).
template <typename P>
void set_param(const ParamTable<P>& table, P& p, const std::string& name, const ParamValue& v) {
    for (const auto& row : table)
        if (name == row.param.name) {
            row.set(p, v);
            return;
        }
    throw InvalidArgument("unknown parameter '" + name + "'");
}

// Parameters by name as a caller gave them, in its order (the command
// line's options: a repeatable one once per use).
using GivenParams = std::vector<std::pair<std::string, ParamValue>>;

// A Params with `given` set over its defaults (InvalidArgument for a name
// the table lacks).
template <typename P> P params_from(const ParamTable<P>& table, const GivenParams& given) {
    P p;
    for (const auto& [name, value] : given)
        set_param(table, p, name, value);
    return p;
}

// Checks every number against its row's range (and its cap), in table
// order; InvalidArgument names the first one outside.
void check_param(const Param& param, long long value, const Caps& caps);

// What a call would hold in memory PostgreSQL does not account for (ring
// memory, buffers), against uringprobe.max_memory_mb in `caps` (its
// default where absent), to the byte: InvalidArgument "<what> = <bytes>
// exceeds uringprobe.max_memory_mb (N MB)" beyond it. `what` says how
// the bytes follow from the parameters ("depth x 4 KiB buffers + the ring").
void check_memory(const std::string& what, long long bytes, const Caps& caps);
template <typename P> void check_ranges(const ParamTable<P>& table, const P& p, const Caps& caps) {
    for (const auto& row : table)
        if (row.get && row.param.checked)
            check_param(row.param, row.get(p), caps);
}

// The rows' Params, for usage text and `uringprobe-cli params`.
template <typename P> std::vector<Param> params_of(const ParamTable<P>& table) {
    std::vector<Param> out;
    for (const auto& row : table)
        out.push_back(row.param);
    return out;
}

// A server's settings as the CLI's own options: every row marked cli_only()
// except those named in `sql_names`, which a SQL function declares with
// NULL as their default (the server's own value).
template <typename P>
ParamTable<P> cli_only_rows(ParamTable<P> table, const std::vector<std::string>& sql_names = {}) {
    for (auto& row : table) {
        row.param.in_sql = false;
        for (const auto& n : sql_names)
            row.param.in_sql = row.param.in_sql || n == row.param.name;
        if (row.param.in_sql)
            row.param.sql_defaults_to("NULL");
    }
    return table;
}

// The CLI's usage lines for `params`: "    --rings N  help (128)", the
// help wrapped to the terminal's 80 columns; and one such line.
std::string usage_lines(const std::vector<Param>& params);
std::string usage_line(const std::string& option, const std::string& help);

// Builders for the rows, so that a table reads as a list of declarations.
Param integer_param(const char* name, long long def, long long min, long long max,
                    const char* help);
Param bigint_param(const char* name, long long def, long long min, long long max, const char* help);
Param boolean_param(const char* name, bool def, const char* help);
// `def` as SQL writes it ('both', NULL); `choices` "a|b|c" or "" (free text).
Param text_param(const char* name, const char* def, const char* choices, const char* help);
// A directory the command line alone takes (--name DIR), `repeatable`
// where each use adds one.
Param dir_option(const char* name, bool repeatable, const char* help);
// A relation (SQL: regclass, DEFAULT NULL); SQL's alone.
Param relation_param(const char* name, const char* help);
// An interval in SQL, seconds on the command line; `def` in seconds. Its
// range is the experiment's to check (its cap is a setting in seconds).
Param seconds_param(const char* name, double def, const char* help);

// The row of a scratch directory parameter `dir` (SQL: NULL for the first
// allowed), for a Params with `dir` and `dir_given`.
template <typename P> ParamRow<P> scratch_dir_row(const char* help) {
    return {text_param("dir", "NULL", "", help),
            [](P& p, const ParamValue& v) {
                p.dir = v.s;
                p.dir_given = !v.null;
            },
            nullptr};
}

// The row of a directory option the command line alone takes, each use
// adding an entry to P's list `Field`, as `Make` makes one of the path.
inline std::string as_path(const std::string& dir) {
    return dir;
}
template <typename P, auto Field, auto Make>
ParamRow<P> dir_list_row(const char* name, const char* help) {
    return {dir_option(name, true, help),
            [](P& p, const ParamValue& v) {
                if (!v.null)
                    (p.*Field).push_back(Make(v.s));
            },
            nullptr};
}

// The row of a number stored in P's `Field` and checked against the range;
// of a boolean stored in `Field`.
template <typename P, auto Field> ParamRow<P> number_row(Param param) {
    return {std::move(param),
            [](P& p, const ParamValue& v) {
                p.*Field = static_cast<std::decay_t<decltype(p.*Field)>>(v.i);
            },
            [](const P& p) { return static_cast<long long>(p.*Field); }};
}
// The row of a text stored in P's `Field` as `Parse` reads it (a name or a
// list of names; Parse throws InvalidArgument for one it does not know).
template <typename P, auto Field, auto Parse> ParamRow<P> parsed_row(Param param) {
    return {std::move(param), [](P& p, const ParamValue& v) { p.*Field = Parse(v.s); }, nullptr};
}
template <typename P, bool P::*Field> ParamRow<P> boolean_row(Param param) {
    return {std::move(param), [](P& p, const ParamValue& v) { p.*Field = v.b; }, nullptr};
}

} // namespace uringprobe
