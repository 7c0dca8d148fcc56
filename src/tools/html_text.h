// Readable text from an HTML page, as Markdown, for fetch_content: what a
// model needs from a page (headings, paragraphs, lists, links, code, tables
// as rows) without its scripts, styles, navigation and markup.
//
// A tolerant tag-soup reader, not a browser: it never fails, keeps at most
// one blank line in a row, decodes the common entities and numeric ones,
// and drops script, style, noscript, template, svg, head, nav, footer,
// aside, form and iframe elements whole. When the page has a <main> or
// <article>, only the first such element is kept (the page's content
// rather than its frame).
#pragma once
#include <string>
#include <string_view>

namespace sepp::tools {

struct HtmlText {
  std::string title;     // <title>, whitespace collapsed; "" if none
  std::string markdown;  // the readable text
};

HtmlText HtmlToMarkdown(std::string_view html);

// "&amp;" -> "&", "&#x41;" -> "A", ...; unknown entities stay as written.
std::string DecodeEntities(std::string_view text);

}  // namespace sepp::tools
