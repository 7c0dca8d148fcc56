/* An example plugin built with wasi-libc: one tool, `count_words`, that
 * counts the lines, words and bytes of a file with ordinary stdio. fopen
 * reaches the file through WASI path_open below the preopened folder of its
 * fs_read grant ("./": the workspace); printf goes to the call's log.
 * Build:
 *   clang --target=wasm32-wasi -mexec-model=reactor -O2 -Wl,--strip-all \
 *         -I ../../../sdk/c -o word_count.wasm word_count.c */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sepp_plugin.h"

static char input[4096];
static char path[1024];

SEPP_EXPORT("sepp_abi_version") int32_t sepp_abi_version(void) { return SEPP_ABI_VERSION; }

SEPP_EXPORT("sepp_describe") int32_t sepp_describe(void) {
  sepp_out("{\"name\":\"word-count\",\"version\":\"0.1.0\",\"tools\":[{\"name\":\"count_words\","
           "\"description\":\"Counts the lines, words and bytes of a file in the workspace.\","
           "\"input_schema\":{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}},"
           "\"required\":[\"path\"]}}]}");
  return 0;
}

SEPP_EXPORT("sepp_call_tool") int32_t sepp_call_tool(void) {
  int32_t n = sepp_read_input(input, sizeof input);
  int32_t args = n < 0 ? -1 : sepp_json_member(input, 0, n, "args");
  if (args < 0 || sepp_json_string(input, sepp_json_member(input, args, n, "path"), n, path, sizeof path) < 0) {
    sepp_err("count_words: give a \"path\" (a string of at most 1023 bytes)");
    return 1;
  }
  printf("counting %s\n", path);
  FILE* f = fopen(path, "r");
  if (!f) {
    char why[1200];
    snprintf(why, sizeof why, "count_words: cannot open %s: %s", path, strerror(errno));
    sepp_err(why);
    return 1;
  }
  long lines = 0, words = 0, bytes = 0;
  int in_word = 0, c;
  while ((c = fgetc(f)) != EOF) {
    bytes++;
    if (c == '\n') lines++;
    if (isspace(c)) in_word = 0;
    else if (!in_word) in_word = 1, words++;
  }
  fclose(f);
  char out[1200];
  snprintf(out, sizeof out, "%s: %ld lines, %ld words, %ld bytes", path, lines, words, bytes);
  sepp_out(out);
  return 0;
}
