// The console's static files (HTML, CSS, JavaScript), embedded in the
// binary at build time from src/console/assets/ (embed_assets.cmake writes
// them as string constants): the node serves its pages with no files on
// disk, no build step and nothing fetched from elsewhere.
//
// Contract: pure; the data lives for the whole program.
#pragma once

#include <string_view>

namespace keywise::console {

struct Asset {
  std::string_view name;  // the file's name in assets/, e.g. "console.js"
  std::string_view content_type;
  std::string_view body;
};

// nullptr when there is no such file.
const Asset* FindAsset(std::string_view name);

}  // namespace keywise::console
