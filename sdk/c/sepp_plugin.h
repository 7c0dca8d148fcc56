/* sepp plugin SDK for C, freestanding (no libc): the imports of plugin ABI
 * v1 (docs/plugins.md) and small helpers to read the call's JSON input and
 * write the output. One header, included by the plugin's one source file:
 *
 *   clang --target=wasm32 -O2 -nostdlib -Wl,--no-entry -Wl,--strip-all \
 *         -I sdk/c -o hello.wasm hello.c
 *
 * A plugin exports sepp_abi_version, sepp_describe and sepp_call_tool
 * (SEPP_EXPORT). Capability imports (sepp:fs_read, sepp:fs_write, sepp:env,
 * sepp:net, sepp:exec) are declared only when the plugin defines
 * SEPP_WANT_FS_READ / SEPP_WANT_FS_WRITE / SEPP_WANT_ENV / SEPP_WANT_NET /
 * SEPP_WANT_EXEC before including this header, so a
 * plugin imports exactly what it asks for, and sepp refuses it unless its
 * manifest grants that and the user confirmed.
 *
 * With wasi-libc (clang --target=wasm32-wasi, __wasi__ defined) the header
 * takes the integer types and memcpy from libc instead, and the plugin may
 * use stdio: stdout and stderr go to the call's log, files only below the
 * granted roots (docs/plugins.md, "WASI"):
 *
 *   clang --target=wasm32-wasi -mexec-model=reactor -O2 -Wl,--strip-all \
 *         -I sdk/c -o word_count.wasm word_count.c */
#ifndef SEPP_PLUGIN_H_
#define SEPP_PLUGIN_H_

#ifdef __wasi__
#include <stddef.h>
#include <stdint.h>
#else
typedef int int32_t;
typedef long long int64_t;
typedef unsigned long size_t;
#endif

#define SEPP_ABI_VERSION 1
#define SEPP_IMPORT(mod, fn) __attribute__((import_module(mod), import_name(fn)))
#define SEPP_EXPORT(fn) __attribute__((export_name(fn)))

/* sepp:core, always linked. */
SEPP_IMPORT("sepp:core", "input_len") int32_t sepp_input_len(void);
SEPP_IMPORT("sepp:core", "input_read") int32_t sepp_input_read(void* dst, int32_t len);
SEPP_IMPORT("sepp:core", "output_write") void sepp_output_write(const void* src, int32_t len);
SEPP_IMPORT("sepp:core", "error_write") void sepp_error_write(const void* src, int32_t len);
SEPP_IMPORT("sepp:core", "log") void sepp_log(int32_t level, const void* src, int32_t len);
SEPP_IMPORT("sepp:core", "result_len") int32_t sepp_result_len(void);
SEPP_IMPORT("sepp:core", "result_read") int32_t sepp_result_read(void* dst, int32_t len);
SEPP_IMPORT("sepp:core", "now_ms") int64_t sepp_now_ms(void);
SEPP_IMPORT("sepp:core", "random") void sepp_random(void* dst, int32_t len);

/* Capability modules: >= 0 is the size of the result (sepp_result_read),
 * < 0 a refusal (-1) or failure (-2) whose reason is the result. */
#ifdef SEPP_WANT_FS_READ
SEPP_IMPORT("sepp:fs_read", "read_file") int32_t sepp_read_file(const char* path, int32_t len);
SEPP_IMPORT("sepp:fs_read", "list_dir") int32_t sepp_list_dir(const char* path, int32_t len);
#endif
#ifdef SEPP_WANT_FS_WRITE
SEPP_IMPORT("sepp:fs_write", "write_file")
int32_t sepp_write_file(const char* path, int32_t plen, const void* data, int32_t dlen);
#endif
#ifdef SEPP_WANT_ENV
SEPP_IMPORT("sepp:env", "env_get") int32_t sepp_env_get(const char* name, int32_t len);
#endif
/* The request is JSON: {"method","url","headers":{},"body"} for http (the
 * result {"status","headers","body"}); {"argv":[],"stdin","timeout_ms"}
 * for run (the result {"exit_code","signal","timed_out","output","denials"}). */
#ifdef SEPP_WANT_NET
SEPP_IMPORT("sepp:net", "http") int32_t sepp_http(const char* request, int32_t len);
#endif
#ifdef SEPP_WANT_EXEC
SEPP_IMPORT("sepp:exec", "run") int32_t sepp_exec(const char* request, int32_t len);
#endif

#ifndef __wasi__
/* clang may call these for copies; freestanding, so they are ours. */
__attribute__((weak)) void* memcpy(void* d, const void* s, size_t n) {
  unsigned char* dp = (unsigned char*)d;
  const unsigned char* sp = (const unsigned char*)s;
  while (n--) *dp++ = *sp++;
  return d;
}
__attribute__((weak)) void* memset(void* d, int c, size_t n) {
  unsigned char* dp = (unsigned char*)d;
  while (n--) *dp++ = (unsigned char)c;
  return d;
}
#endif

static inline int32_t sepp_strlen(const char* s) {
  int32_t n = 0;
  while (s[n]) n++;
  return n;
}
static inline void sepp_out(const char* s) { sepp_output_write(s, sepp_strlen(s)); }
static inline void sepp_err(const char* s) { sepp_error_write(s, sepp_strlen(s)); }

/* The call's input, read into buf (NUL-terminated); its length, or -1 when
 * it does not fit. */
static inline int32_t sepp_read_input(char* buf, int32_t cap) {
  int32_t n = sepp_input_len();
  if (n < 0 || n >= cap) return -1;
  sepp_input_read(buf, n);
  buf[n] = 0;
  return n;
}

/* --- a minimal JSON reader over the input (sepp writes compact JSON) --- */
static inline int32_t sepp__ws(const char* s, int32_t i, int32_t n) {
  while (i < n && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r')) i++;
  return i;
}
/* The index just after the JSON value starting at i (or -1). */
static inline int32_t sepp_json_skip(const char* s, int32_t i, int32_t n) {
  i = sepp__ws(s, i, n);
  if (i >= n) return -1;
  if (s[i] == '"') {
    for (i++; i < n; i++) {
      if (s[i] == '\\') i++;
      else if (s[i] == '"') return i + 1;
    }
    return -1;
  }
  if (s[i] == '{' || s[i] == '[') {
    int32_t depth = 0;
    for (; i < n; i++) {
      if (s[i] == '"') {
        i = sepp_json_skip(s, i, n);
        if (i < 0) return -1;
        i--;
      } else if (s[i] == '{' || s[i] == '[') {
        depth++;
      } else if (s[i] == '}' || s[i] == ']') {
        if (--depth == 0) return i + 1;
      }
    }
    return -1;
  }
  while (i < n && s[i] != ',' && s[i] != '}' && s[i] != ']') i++;
  return i;
}
/* The start of member `key` of the object at obj (or -1). */
static inline int32_t sepp_json_member(const char* s, int32_t obj, int32_t n, const char* key) {
  int32_t i = sepp__ws(s, obj, n), klen = sepp_strlen(key);
  if (i >= n || s[i] != '{') return -1;
  i++;
  for (;;) {
    i = sepp__ws(s, i, n);
    if (i >= n || s[i] != '"') return -1;
    int32_t k = i + 1, end = sepp_json_skip(s, i, n);
    if (end < 0) return -1;
    int32_t match = end - k - 1 == klen;
    for (int32_t j = 0; match && j < klen; j++) match = s[k + j] == key[j];
    i = sepp__ws(s, end, n);
    if (i >= n || s[i] != ':') return -1;
    i = sepp__ws(s, i + 1, n);
    if (match) return i;
    i = sepp_json_skip(s, i, n);
    if (i < 0) return -1;
    i = sepp__ws(s, i, n);
    if (i < n && s[i] == ',') i++;
    else return -1;
  }
}
/* Copies the JSON string at i, unescaped (\" \\ \/ \n \t only; others kept),
 * to out; its length, or -1 if it is not a string or does not fit. */
static inline int32_t sepp_json_string(const char* s, int32_t i, int32_t n, char* out, int32_t cap) {
  if (i < 0 || i >= n || s[i] != '"') return -1;
  int32_t o = 0;
  for (i++; i < n && s[i] != '"'; i++) {
    char c = s[i];
    if (c == '\\' && i + 1 < n) {
      c = s[++i];
      if (c == 'n') c = '\n';
      else if (c == 't') c = '\t';
      else if (c != '"' && c != '\\' && c != '/') {
        if (o + 1 >= cap) return -1;
        out[o++] = '\\';
      }
    }
    if (o + 1 >= cap) return -1;
    out[o++] = c;
  }
  if (i >= n) return -1;
  out[o] = 0;
  return o;
}
/* Writes s as a JSON string literal (quoted, escaped) to the output. */
static inline void sepp_out_json_string(const char* s, int32_t len) {
  static const char hex[] = "0123456789abcdef";
  sepp_output_write("\"", 1);
  for (int32_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      char e[2] = {'\\', (char)c};
      sepp_output_write(e, 2);
    } else if (c < 0x20) {
      char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
      sepp_output_write(e, 6);
    } else {
      sepp_output_write(s + i, 1);
    }
  }
  sepp_output_write("\"", 1);
}

#endif /* SEPP_PLUGIN_H_ */
