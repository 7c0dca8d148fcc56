/* The example plugin: one tool, `greet`, that greets a name. It needs no
 * capability, so it imports only sepp:core. Build:
 *   clang --target=wasm32 -O2 -nostdlib -Wl,--no-entry -Wl,--strip-all \
 *         -I ../../../sdk/c -o hello.wasm hello.c
 * then put hello.wasm and sepp-plugin.toml (with the file's sha256) in
 * ~/.sepp/plugins/hello/ and run `sepp plugin trust hello`. */
#include "sepp_plugin.h"

static char input[4096];
static char name[256];

SEPP_EXPORT("sepp_abi_version") int32_t sepp_abi_version(void) { return SEPP_ABI_VERSION; }

SEPP_EXPORT("sepp_describe") int32_t sepp_describe(void) {
  sepp_out("{\"name\":\"hello\",\"version\":\"0.1.0\",\"tools\":[{\"name\":\"greet\","
           "\"description\":\"Greets someone by name.\",\"input_schema\":{\"type\":\"object\","
           "\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}}]}");
  return 0;
}

SEPP_EXPORT("sepp_call_tool") int32_t sepp_call_tool(void) {
  int32_t n = sepp_read_input(input, sizeof input);
  if (n < 0) {
    sepp_err("greet: the input is larger than 4 KiB");
    return 1;
  }
  int32_t args = sepp_json_member(input, 0, n, "args");
  int32_t len = sepp_json_string(input, sepp_json_member(input, args, n, "name"), n, name, sizeof name);
  if (len < 0) {
    sepp_err("greet: give a \"name\" (a string of at most 255 bytes)");
    return 1;
  }
  sepp_out("Hello, ");
  sepp_output_write(name, len);
  sepp_out("! (from a WebAssembly plugin)");
  return 0;
}
