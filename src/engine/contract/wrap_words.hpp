// Text broken into lines between words, for usage text and SQL comments.
#pragma once

#include <string>
#include <vector>

namespace uringprobe {

// `text`'s words (split at each space) in lines of at most `width`
// characters, a word longer than that on a line of its own; none for an
// empty text.
inline std::vector<std::string> wrap_words(const std::string& text, size_t width) {
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find(' ', start);
        if (end == std::string::npos)
            end = text.size();
        const std::string word = text.substr(start, end - start);
        if (lines.empty() ||
            (!lines.back().empty() && lines.back().size() + 1 + word.size() > width))
            lines.push_back(word);
        else if (lines.back().empty())
            lines.back() = word;
        else
            lines.back() += " " + word;
        start = end + 1;
    }
    return lines;
}

} // namespace uringprobe
