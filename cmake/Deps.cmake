# Third-party libraries, all from Debian bookworm, linked from their static
# archives so that the sepp binary can be fully static (docs/design.md §2).
find_package(Threads REQUIRED)
set(OPENSSL_USE_STATIC_LIBS TRUE)
find_package(OpenSSL REQUIRED)
find_package(nlohmann_json 3.11 REQUIRED)
find_package(GTest REQUIRED)

function(sepp_static_lib target archive header_hint)
  find_library(${target}_LIB NAMES ${archive} REQUIRED)
  add_library(${target} STATIC IMPORTED GLOBAL)
  set_target_properties(${target} PROPERTIES IMPORTED_LOCATION ${${target}_LIB})
  if(header_hint)
    target_include_directories(${target} INTERFACE ${header_hint})
  endif()
endfunction()

sepp_static_lib(dep_seccomp libseccomp.a "")
# Lua compiled as C++ (liblua5.4-c++.a): its errors unwind C++ frames (ext/lua/).
sepp_static_lib(dep_lua liblua5.4-c++.a /usr/include/lua5.4)
sepp_static_lib(dep_pcre2 libpcre2-8.a "")
target_compile_definitions(dep_pcre2 INTERFACE PCRE2_CODE_UNIT_WIDTH=8 PCRE2_STATIC)
sepp_static_lib(dep_sqlite libsqlite3.a "")
target_link_libraries(dep_sqlite INTERFACE Threads::Threads ${CMAKE_DL_LIBS} m)
sepp_static_lib(dep_z libz.a "")
# The terminal UI: grapheme widths (utf8proc) and, for its screen tests, a
# terminal emulator in process (libvterm).
sepp_static_lib(dep_utf8proc libutf8proc.a "")
sepp_static_lib(dep_vterm libvterm.a "")
# Markdown in the terminal UI: CommonMark with the GFM extensions (tables,
# strikethrough, autolinks, task lists).
sepp_static_lib(dep_cmark_gfm libcmark-gfm.a "")
sepp_static_lib(dep_cmark_gfm_extensions libcmark-gfm-extensions.a "")
target_link_libraries(dep_cmark_gfm_extensions INTERFACE dep_cmark_gfm)

# toml++ and CLI11 are header-only; nothing to link.
add_library(dep_toml INTERFACE)
target_compile_definitions(dep_toml INTERFACE TOML_EXCEPTIONS=1)
add_library(dep_cli11 INTERFACE)
