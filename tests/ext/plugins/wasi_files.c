/* A test plugin built with wasi-libc (tests/ext/plugin_wasi_test.cc): each
 * tool uses one part of the WASI subset, through libc as a real plugin would
 * or, for the attacks, through the raw WASI calls, so the host's checks are
 * what stops it, not libc's. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wasi/api.h>

#include "sepp_plugin.h"

static char input[8192];
static char tool[64], path[1024], text[4096], out[16384];

SEPP_EXPORT("sepp_abi_version") int32_t sepp_abi_version(void) { return SEPP_ABI_VERSION; }

SEPP_EXPORT("sepp_describe") int32_t sepp_describe(void) {
  sepp_out("{\"name\":\"wasi-files\",\"version\":\"1\",\"tools\":[{\"name\":\"read\"},{\"name\":\"write\"},"
           "{\"name\":\"list\"},{\"name\":\"raw_open\"},{\"name\":\"env\"},{\"name\":\"print\"},"
           "{\"name\":\"exit\"},{\"name\":\"clock\"},{\"name\":\"raw\"}]}");
  return 0;
}

/* The integer at i (or 0). */
static long long int_at(const char* s, int32_t i, int32_t n) {
  if (i < 0 || i >= n) return 0;
  return strtoll(s + i, 0, 10);
}

/* "raw": one WASI call with the arguments as given, for the fuzz test:
 * args {"fn": index, "a": [up to 9 integers], "text": bytes}. An argument
 * of -7777 becomes the address of a copy of text, -7778 the address of a
 * scratch buffer. Pointers are otherwise whatever the test chose: the host
 * must check every one. Ends with proc_exit(0). */
static char scratch[4096];
static int32_t raw(int32_t args, int32_t n) {
  long long a[9] = {0};
  int32_t arr = sepp_json_member(input, args, n, "a");
  for (int k = 0, i = arr + 1; arr >= 0 && k < 9 && i < n && input[i] != ']'; k++) {
    a[k] = int_at(input, i, n);
    while (i < n && input[i] != ',' && input[i] != ']') i++;
    if (input[i] == ',') i++;
  }
  for (int k = 0; k < 9; k++) {
    if (a[k] == -7777) a[k] = (long long)(uintptr_t)text;
    else if (a[k] == -7778) a[k] = (long long)(uintptr_t)scratch;
  }
#define P(k) ((void*)(uintptr_t)(uint32_t)a[k])
#define U(k) ((uint32_t)a[k])
  int e;
  switch ((int)int_at(input, sepp_json_member(input, args, n, "fn"), n)) {
    case 0: e = __wasi_fd_write(U(0), P(1), U(2), P(3)); break;
    case 1: e = __wasi_fd_read(U(0), P(1), U(2), P(3)); break;
    case 2: e = __wasi_fd_seek(U(0), a[1], U(2), P(3)); break;
    case 3: e = __wasi_fd_close(U(0)); break;
    case 4: e = __wasi_fd_fdstat_get(U(0), P(1)); break;
    case 5: e = __wasi_fd_filestat_get(U(0), P(1)); break;
    case 6: e = __wasi_fd_prestat_get(U(0), P(1)); break;
    case 7: e = __wasi_fd_prestat_dir_name(U(0), P(1), U(2)); break;
    case 8: e = __wasi_fd_readdir(U(0), P(1), U(2), a[3], P(4)); break;
    case 9: e = __wasi_path_open(U(0), U(1), P(2), U(3), a[4], a[5], U(6), P(7)); break;
    case 10: e = __wasi_path_filestat_get(U(0), U(1), P(2), P(4)); break;
    case 11: e = __wasi_environ_get(P(0), P(1)); break;
    case 12: e = __wasi_environ_sizes_get(P(0), P(1)); break;
    case 13: e = __wasi_clock_time_get(U(0), a[1], P(2)); break;
    case 14: e = __wasi_random_get(P(0), U(1)); break;
    case 15: e = __wasi_fd_tell(U(0), P(1)); break;
    default: e = -1;
  }
  snprintf(out, sizeof out, "e=%d", e);
  sepp_out(out);
  /* The call may have written anywhere in this instance's memory (its
   * strings, its stdio state): end it, so the next call gets a fresh one. */
  __wasi_proc_exit(0);
}

static int32_t fail(const char* what) {
  snprintf(out, sizeof out, "%s %s: %s", what, path, strerror(errno));
  sepp_err(out);
  return 1;
}

SEPP_EXPORT("sepp_call_tool") int32_t sepp_call_tool(void) {
  int32_t n = sepp_read_input(input, sizeof input);
  int32_t args = sepp_json_member(input, 0, n, "args");
  sepp_json_string(input, sepp_json_member(input, 0, n, "name"), n, tool, sizeof tool);
  path[0] = text[0] = 0;
  sepp_json_string(input, sepp_json_member(input, args, n, "path"), n, path, sizeof path);
  sepp_json_string(input, sepp_json_member(input, args, n, "text"), n, text, sizeof text);

  if (!strcmp(tool, "read")) {
    FILE* f = fopen(path, "r");
    if (!f) return fail("cannot open");
    size_t got = fread(out, 1, sizeof out - 1, f);
    fclose(f);
    out[got] = 0;
    sepp_out(out);
    return 0;
  }
  if (!strcmp(tool, "write")) {
    FILE* f = fopen(path, "w");
    if (!f) return fail("cannot create");
    fputs(text, f);
    if (fclose(f) != 0) return fail("cannot write");
    sepp_out("written");
    return 0;
  }
  if (!strcmp(tool, "list")) {
    DIR* d = opendir(path);
    if (!d) return fail("cannot list");
    out[0] = 0;
    for (struct dirent* e; (e = readdir(d));) {
      strncat(out, e->d_name, sizeof out - strlen(out) - 2);
      strcat(out, "\n");
    }
    closedir(d);
    sepp_out(out);
    return 0;
  }
  if (!strcmp(tool, "raw_open")) {
    /* path_open on the first preopen (fd 3) with the path as given: no libc
     * in between, so only the host can refuse. */
    __wasi_fd_t fd;
    int write = text[0] == 'w';
    __wasi_rights_t rights = write ? __WASI_RIGHTS_FD_WRITE : __WASI_RIGHTS_FD_READ;
    __wasi_errno_t e = __wasi_path_open(3, 0, path, write ? __WASI_OFLAGS_CREAT | __WASI_OFLAGS_TRUNC : 0,
                                        rights, 0, 0, &fd);
    if (e != 0) {
      snprintf(out, sizeof out, "errno %d", (int)e);
      sepp_out(out);
      return 0;
    }
    if (write) {
      __wasi_ciovec_t iov = {(const uint8_t*)"pwned\n", 6};
      __wasi_size_t w;
      if (__wasi_fd_write(fd, &iov, 1, &w) != 0) w = 0;
      snprintf(out, sizeof out, "opened and wrote %d", (int)w);
    } else {
      char buf[256] = {0};
      __wasi_iovec_t iov = {(uint8_t*)buf, sizeof buf - 1};
      __wasi_size_t r;
      if (__wasi_fd_read(fd, &iov, 1, &r) != 0) r = 0;
      snprintf(out, sizeof out, "opened and read: %s", buf);
    }
    if (__wasi_fd_close(fd) != 0) strcat(out, " (close failed)");
    sepp_out(out);
    return 0;
  }
  if (!strcmp(tool, "env")) {
    const char* names[] = {"PLUGIN_VISIBLE", "PLUGIN_HIDDEN", "ANTHROPIC_API_KEY"};
    out[0] = 0;
    for (int i = 0; i < 3; i++) {
      const char* v = getenv(names[i]);
      snprintf(out + strlen(out), sizeof out - strlen(out), "%s=%s\n", names[i], v ? v : "(unset)");
    }
    extern char** environ;
    int count = 0;
    for (char** e = environ; *e; e++) count++;
    snprintf(out + strlen(out), sizeof out - strlen(out), "count=%d", count);
    sepp_out(out);
    return 0;
  }
  if (!strcmp(tool, "print")) {
    printf("to stdout %d\n", 1);
    fprintf(stderr, "to stderr\n");
    printf("no newline at the end");
    fflush(stdout);
    sepp_out("printed");
    return 0;
  }
  if (!strcmp(tool, "exit")) {
    sepp_out("before exit");
    exit(text[0] ? atoi(text) : 0);
  }
  if (!strcmp(tool, "clock")) {
    struct timespec rt, mono;
    clock_gettime(CLOCK_REALTIME, &rt);
    clock_gettime(CLOCK_MONOTONIC, &mono);
    unsigned char r[16] = {0};
    int got = getentropy(r, sizeof r);
    int nonzero = 0;
    for (int i = 0; i < 16; i++) nonzero |= r[i];
    snprintf(out, sizeof out, "year>=2024:%d mono>0:%d entropy:%d nonzero:%d", rt.tv_sec > 1704067200,
             mono.tv_sec > 0 || mono.tv_nsec > 0, got == 0, nonzero != 0);
    sepp_out(out);
    return 0;
  }
  if (!strcmp(tool, "raw")) return raw(args, n);
  sepp_err("unknown tool");
  return 1;
}
