// The inspector at /ui/ (docs/serve.md): its files are compiled into the
// binary (cmake/EmbedFiles.cmake makes UiFiles() from src/front/serve/ui/),
// and served with headers that let the page run only its own script, talk
// only to this server and never be framed.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "net/http_client.h"

namespace sepp::front::serve {

struct UiFile {
  const char* name;  // "app.js"
  std::string_view content;
};
const std::vector<UiFile>& UiFiles();  // generated

// The file a path under /ui/ names ("" and "index.html" are the page),
// else nullptr: only the embedded names, nothing from the disk.
const UiFile* FindUiFile(std::string_view name);
std::string UiContentType(std::string_view name);
// Content-Security-Policy and the other headers every inspector answer has.
net::Headers UiHeaders(std::string_view name);

}  // namespace sepp::front::serve
