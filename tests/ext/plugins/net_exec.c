/* A test plugin for sepp:net and sepp:exec (tests/ext/plugin_net_exec_test.cc):
 * each tool passes its "request" argument (a JSON string) to one capability
 * call and writes "<status> <payload>", so the test sees exactly what the
 * host answered: >= 0 done, -1 refused, -2 failed. */
#define SEPP_WANT_NET
#define SEPP_WANT_EXEC
#include "sepp_plugin.h"

static char input[16384];
static char tool[64], request[8192], result[65536];

SEPP_EXPORT("sepp_abi_version") int32_t sepp_abi_version(void) { return SEPP_ABI_VERSION; }

SEPP_EXPORT("sepp_describe") int32_t sepp_describe(void) {
  sepp_out("{\"name\":\"net-exec\",\"version\":\"1\",\"tools\":[{\"name\":\"http\"},{\"name\":\"exec\"}]}");
  return 0;
}

static void put_int(int32_t v) {
  char buf[16];
  int i = 15, neg = v < 0;
  buf[i] = 0;
  if (v == 0) buf[--i] = '0';
  for (int32_t u = neg ? -v : v; u > 0; u /= 10) buf[--i] = (char)('0' + u % 10);
  if (neg) buf[--i] = '-';
  sepp_out(buf + i);
}

SEPP_EXPORT("sepp_call_tool") int32_t sepp_call_tool(void) {
  int32_t n = sepp_read_input(input, sizeof input);
  int32_t args = sepp_json_member(input, 0, n, "args");
  sepp_json_string(input, sepp_json_member(input, 0, n, "name"), n, tool, sizeof tool);
  int32_t len = sepp_json_string(input, sepp_json_member(input, args, n, "request"), n, request, sizeof request);
  if (len < 0) {
    sepp_err("give a \"request\" string");
    return 1;
  }
  int32_t r = tool[0] == 'h' ? sepp_http(request, len) : sepp_exec(request, len);
  put_int(r);
  sepp_out(" ");
  int32_t got = sepp_result_read(result, sizeof result);
  sepp_output_write(result, got);
  return 0;
}
