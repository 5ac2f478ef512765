#include "contract/param_table.hpp"
#include "contract/wrap_words.hpp"

#include "contract/caps.hpp"
#include "contract/number_text.hpp"

#include <cctype>
#include <cstdlib>
#include <utility>

namespace uringprobe {

std::string Param::option() const {
    if (!cli.empty())
        return cli;
    std::string o = "--" + name;
    for (char& c : o)
        if (c == '_')
            c = '-';
    return o;
}

const char* Param::sql_type() const {
    static const NamedValue kSqlTypes[] = {
        {"integer", int(ParamType::integer)},  {"bigint", int(ParamType::bigint)},
        {"boolean", int(ParamType::boolean)},  {"text", int(ParamType::text)},
        {"interval", int(ParamType::seconds)}, {"regclass", int(ParamType::relation)}};
    return name_of(kSqlTypes, int(type));
}

ParamValue Param::default_value() const {
    ParamValue v;
    const std::string d = default_sql;
    if (d == "NULL")
        v.null = true;
    else if (type == ParamType::boolean)
        v.b = d == "true";
    else if (type == ParamType::text)
        v.s = d.size() >= 2 ? d.substr(1, d.size() - 2) : d; // 'quoted'
    else if (type == ParamType::seconds)
        v.seconds = std::strtod(d.c_str() + (d.empty() ? 0 : 1), nullptr); // '20 seconds'
    else
        v.i = std::strtoll(d.c_str(), nullptr, 10);
    return v;
}

std::string Param::range_text(long long max_now) const {
    return std::string(power_of_two ? "a power of two " : "") + "between " + std::to_string(min) +
           " and " + std::to_string(max_now) + (cap.empty() ? "" : " (" + cap + ")");
}

void check_param(const Param& param, long long value, const Caps& caps) {
    long long hi = param.max;
    if (!param.cap.empty()) {
        const auto it = caps.find(param.cap);
        if (it != caps.end())
            hi = it->second;
    }
    if (value < param.min || value > hi || (param.power_of_two && (value & (value - 1))))
        throw InvalidArgument(param.name + " must be " + param.range_text(hi) + ", got " +
                              std::to_string(value));
}

void check_memory(const std::string& what, long long bytes, const Caps& caps) {
    const long long cap_mb = cap_value(caps, kMaxMemoryMb);
    if (bytes <= (cap_mb << 20))
        return;
    // Whole MiB as such; else rounded up, so that what is refused never
    // reads as within the cap.
    const long long mib = 1LL << 20;
    const std::string size =
        bytes % mib == 0 ? std::to_string(bytes / mib) + " MiB"
        : bytes < mib    ? std::to_string((bytes + 1023) >> 10) + " KiB"
                      : fixed(static_cast<double>((bytes * 10 + mib - 1) / mib) / 10, 1) + " MiB";
    throw InvalidArgument(what + " = " + size + " exceeds " + kMaxMemoryMb.name + " (" +
                          std::to_string(cap_mb) + " MB)");
}

std::string usage_line(const std::string& option, const std::string& help) {
    constexpr size_t kHelpColumn = 36, kWidth = 79;
    std::string out = "    " + option;
    if (out.size() + 2 > kHelpColumn)
        out += "\n" + std::string(kHelpColumn, ' ');
    else
        out.resize(kHelpColumn, ' ');
    const std::vector<std::string> lines = wrap_words(help, kWidth - kHelpColumn);
    for (size_t i = 0; i < lines.size(); ++i)
        out += (i ? "\n" + std::string(kHelpColumn, ' ') : std::string()) + lines[i];
    return out + "\n";
}

std::string usage_lines(const std::vector<Param>& params) {
    std::string out;
    for (const Param& p : params) {
        if (p.type == ParamType::relation)
            continue; // not an option of the CLI
        std::string option = p.option();
        if (p.type == ParamType::boolean) {
            out += usage_line(option, p.cli_help.empty() ? p.help : p.cli_help);
            continue;
        }
        if (!p.choices.empty())
            option += " " + p.choices;
        else if (p.type == ParamType::seconds)
            option += " SECONDS";
        else if (p.type == ParamType::text) {
            std::string metavar = p.metavar.empty() ? p.name : p.metavar;
            for (char& c : metavar)
                c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
            option += " " + metavar;
        } else
            option += " N";
        const ParamValue d = p.default_value();
        std::string help = p.help;
        if (!d.null)
            help += " (" +
                    (p.type == ParamType::text      ? (d.s.empty() ? "none" : d.s)
                     : p.type == ParamType::seconds ? fixed(d.seconds, 0)
                                                    : p.default_sql) +
                    ")";
        if (p.repeatable)
            help += " (repeatable)";
        out += usage_line(option, help);
    }
    return out;
}

namespace {
// What every builder sets.
Param param(const char* name, ParamType type, std::string default_sql, std::string help) {
    Param p;
    p.name = name;
    p.type = type;
    p.default_sql = std::move(default_sql);
    p.help = std::move(help);
    return p;
}

Param number_param(ParamType type, const char* name, long long def, long long min, long long max,
                   const char* help) {
    Param p = param(name, type, std::to_string(def), help);
    p.min = min;
    p.max = max;
    return p;
}
} // namespace

Param integer_param(const char* name, long long def, long long min, long long max,
                    const char* help) {
    return number_param(ParamType::integer, name, def, min, max, help);
}

Param bigint_param(const char* name, long long def, long long min, long long max,
                   const char* help) {
    return number_param(ParamType::bigint, name, def, min, max, help);
}

Param boolean_param(const char* name, bool def, const char* help) {
    return param(name, ParamType::boolean, def ? "true" : "false", help);
}

Param text_param(const char* name, const char* def, const char* choices, const char* help) {
    Param p = param(name, ParamType::text, def, help);
    p.choices = choices ? choices : "";
    return p;
}

Param dir_option(const char* name, bool repeatable, const char* help) {
    Param p = text_param(name, "NULL", "", help);
    p.metavar = "DIR";
    p.repeatable = repeatable;
    p.in_sql = false;
    return p;
}

Param relation_param(const char* name, const char* help) {
    Param p = param(name, ParamType::relation, "NULL", help);
    p.checked = false;
    return p;
}

Param seconds_param(const char* name, double def, const char* help) {
    Param p = param(name, ParamType::seconds, "'" + fixed(def, 0) + " seconds'", help);
    p.checked = false;
    return p;
}

} // namespace uringprobe
