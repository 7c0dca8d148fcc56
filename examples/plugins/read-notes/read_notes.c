/* An example plugin that needs a capability: `read_note` returns a file of
 * the workspace. It imports sepp:fs_read.read_file, so sepp loads it only
 * when its manifest grants fs_read (and the user confirmed); without the
 * grant it is refused before it is instantiated, naming that import. */
#define SEPP_WANT_FS_READ
#include "sepp_plugin.h"

static char input[4096];
static char path[1024];
static char data[65536];

SEPP_EXPORT("sepp_abi_version") int32_t sepp_abi_version(void) { return SEPP_ABI_VERSION; }

SEPP_EXPORT("sepp_describe") int32_t sepp_describe(void) {
  sepp_out("{\"name\":\"read-notes\",\"version\":\"0.1.0\",\"tools\":[{\"name\":\"read_note\","
           "\"description\":\"Reads a note file (up to 64 KiB).\",\"input_schema\":{\"type\":\"object\","
           "\"properties\":{\"path\":{\"type\":\"string\"}},\"required\":[\"path\"]}}]}");
  return 0;
}

SEPP_EXPORT("sepp_call_tool") int32_t sepp_call_tool(void) {
  int32_t n = sepp_read_input(input, sizeof input);
  int32_t args = n < 0 ? -1 : sepp_json_member(input, 0, n, "args");
  int32_t len = args < 0 ? -1 : sepp_json_string(input, sepp_json_member(input, args, n, "path"), n, path, sizeof path);
  if (len < 0) {
    sepp_err("read_note: give a \"path\"");
    return 1;
  }
  int32_t got = sepp_read_file(path, len);
  int32_t size = sepp_result_len();
  if (size > (int32_t)sizeof data) size = sizeof data;
  sepp_result_read(data, size);
  if (got < 0) {
    sepp_error_write(data, size);
    return 1;
  }
  sepp_output_write(data, size);
  return 0;
}
