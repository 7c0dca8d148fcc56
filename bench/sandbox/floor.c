/* The floor of any namespace sandbox launcher on this machine: a tiny static
 * C program that does only what the namespaces require and nothing
 * else -- clone into new user, mount, pid, ipc, uts, cgroup and network
 * namespaces (posix_spawn style, CLONE_VM | CLONE_VFORK), write its own uid
 * and gid maps, exec the command, wait. No mounts, no /proc, no Landlock, no
 * seccomp, no policy. bench/sandbox/run.sh builds it with `cc -O2 -static`
 * and times `floor CMD` beside sepp and bubblewrap: what it takes is out of
 * reach of any real launcher that creates these namespaces.
 *
 *   floor CMD ARGS...
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char stack[64 * 1024];
static char** command;
static char uid_map[64], gid_map[64];  /* made before clone: inside, ids are unmapped */

static void write_file(const char* path, const char* text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) _exit(125);
  close(fd);
}

static int child(void* arg) {
  (void)arg;
  write_file("/proc/self/setgroups", "deny");
  write_file("/proc/self/uid_map", uid_map);
  write_file("/proc/self/gid_map", gid_map);
  execvp(command[0], command);
  _exit(127);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: floor CMD ARGS...\n");
    return 2;
  }
  command = argv + 1;
  snprintf(uid_map, sizeof uid_map, "%u %u 1\n", (unsigned)geteuid(), (unsigned)geteuid());
  snprintf(gid_map, sizeof gid_map, "%u %u 1\n", (unsigned)getegid(), (unsigned)getegid());
  int flags = CLONE_VM | CLONE_VFORK | CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID |
              CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP | CLONE_NEWNET | SIGCHLD;
  pid_t pid = clone(child, stack + sizeof stack, flags, NULL);
  if (pid < 0) {
    perror("clone");
    return 125;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
