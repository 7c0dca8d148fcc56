/* A test plugin that misbehaves on request: each tool tries to break the
 * host through the ABI or to escape a limit. Built by tests/ext/plugins_test.cc. */
#include "sepp_plugin.h"

static char input[4096];
static char tool[64];
static char chunk[65536];

SEPP_EXPORT("sepp_abi_version") int32_t sepp_abi_version(void) { return SEPP_ABI_VERSION; }

SEPP_EXPORT("sepp_describe") int32_t sepp_describe(void) {
  sepp_out("{\"name\":\"hostile\",\"version\":\"1\",\"tools\":[{\"name\":\"ok\"},{\"name\":\"spin\"},"
           "{\"name\":\"recurse\"},{\"name\":\"grow\"},{\"name\":\"oob\"},{\"name\":\"bad_output\"},"
           "{\"name\":\"negative_length\"},{\"name\":\"bad_input\"},{\"name\":\"huge\"},"
           "{\"name\":\"fail\"},{\"name\":\"result\"},{\"name\":\"log_flood\"}]}");
  return 0;
}

static volatile int32_t sink;

/* Called through a volatile pointer, so the compiler cannot turn the
 * recursion into a loop: it really nests. */
static int32_t recurse(int32_t n);
static int32_t (*volatile recurse_ptr)(int32_t) = recurse;
static int32_t recurse(int32_t n) {
  if (n == 0) return 0;
  return recurse_ptr(n - 1) + 1;
}

static int eq(const char* a, const char* b) {
  while (*a && *a == *b) a++, b++;
  return *a == *b;
}

SEPP_EXPORT("sepp_call_tool") int32_t sepp_call_tool(void) {
  int32_t n = sepp_read_input(input, sizeof input);
  if (n < 0 || sepp_json_string(input, sepp_json_member(input, 0, n, "name"), n, tool, sizeof tool) < 0) {
    sepp_err("no tool name");
    return 1;
  }
  if (eq(tool, "ok")) {
    sepp_out("fine");
  } else if (eq(tool, "spin")) {
    for (;;) sink = sink + 1;
  } else if (eq(tool, "recurse")) {
    sink = recurse(100000000);
  } else if (eq(tool, "grow")) {
    /* Asks for 4096 pages (256 MiB): refused by the cap, so -1. */
    int32_t old = __builtin_wasm_memory_grow(0, 4096);
    sepp_out(old < 0 ? "grow refused" : "grow allowed");
  } else if (eq(tool, "oob")) {
    *(volatile int32_t*)0x7ffffff0 = 1;
  } else if (eq(tool, "bad_output")) {
    sepp_output_write((const void*)0x7ffffff0, 100);
  } else if (eq(tool, "negative_length")) {
    sepp_output_write(chunk, -5);
  } else if (eq(tool, "bad_input")) {
    sepp_input_read((void*)0xffffff00, 1000);
  } else if (eq(tool, "huge")) {
    for (int i = 0; i < (int)sizeof chunk; i++) chunk[i] = 'x';
    for (int i = 0; i < 100; i++) sepp_output_write(chunk, sizeof chunk);
  } else if (eq(tool, "fail")) {
    sepp_err("it failed on purpose");
    return 3;
  } else if (eq(tool, "result")) {
    sepp_out("{\"content\":[{\"type\":\"text\",\"text\":\"first\"},{\"type\":\"text\",\"text\":\"second\"}],"
             "\"is_error\":true}");
  } else if (eq(tool, "log_flood")) {
    for (int i = 0; i < 1000; i++) sepp_log(1, chunk, 1024);
    sepp_out("logged");
  } else {
    sepp_err("unknown tool");
    return 1;
  }
  return 0;
}
