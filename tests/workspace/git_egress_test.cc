// git inside the sandbox reaches remotes only through the egress allowlist
// (tools/git_egress.h), tested by attack in real sandboxed children: with
// no hosts set, git fetch and push over HTTP and SSH fail and the servers
// never see a connection; with a host allowed, a dumb-HTTP git server on
// the host's loopback (named "localhost:PORT", the exact name the proxy
// lets reach this machine) is cloned through the proxy, an SSH-like target
// gets ssh's banner through the CONNECT tunnel, and every other host and
// port is refused; the user's ~/.ssh and agent socket stay out.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "tools/git_egress.h"
#include "workspace/egress_fixture.h"
#include "workspace/git_servers.h"

namespace sepp::tools {
namespace {

namespace fs = std::filesystem;
using testing_git::DumbGitServer;
using testing_git::SshLikeTarget;

using GitEgressTest = testing_git::EgressFixture;

TEST_F(GitEgressTest, WithNoHostsGitReachesNothingOverHttpOrSsh) {
  DumbGitServer http(root_ / "srv");
  SshLikeTarget ssh;
  auto egress = LoadGitEgress(home_ / ".sepp/settings.toml");
  ASSERT_TRUE(egress.ok()) << egress.error().message;
  ASSERT_TRUE(egress->empty());
  sandbox::Policy p = PolicyWith(*egress);
  EXPECT_EQ(p.net, sandbox::NetMode::kOff);
  EXPECT_EQ(p.env_set.count("GIT_SSH_COMMAND"), 0u);

  const std::string h = Port(http.port()), s = Port(ssh.port());
  auto fetch = Sh("git clone -q http://localhost:" + h + "/remote.git /tmp/c; echo rc=$?", p);
  ASSERT_EQ(fetch.error, "");
  EXPECT_NE(fetch.output.find("rc=128"), std::string::npos) << fetch.output;
  auto push = Sh("git init -q /tmp/r && cd /tmp/r && git -c user.name=t -c user.email=t@t commit -q "
                 "--allow-empty -m x && git push http://localhost:" + h + "/remote.git HEAD:refs/heads/x; "
                 "echo rc=$?", p);
  EXPECT_NE(push.output.find("rc=128"), std::string::npos) << push.output;
  auto over_ssh = Sh("git clone -q ssh://git@localhost:" + s + "/remote.git /tmp/s; echo rc=$?; "
                     "git ls-remote ssh://git@127.0.0.1:" + s + "/remote.git; echo rc=$?", p);
  EXPECT_EQ(over_ssh.output.find("rc=0"), std::string::npos) << over_ssh.output;
  auto direct = Sh("exec 3<>/dev/tcp/127.0.0.1/" + h + " && echo CONNECTED; "
                   "exec 4<>/dev/tcp/127.0.0.1/" + s + " && echo CONNECTED", p);
  EXPECT_EQ(direct.output.find("CONNECTED"), std::string::npos) << direct.output;
  // Nothing arrived: the sandbox has no network at all.
  EXPECT_EQ(http.connections(), 0);
  EXPECT_EQ(ssh.connections(), 0);
}

TEST_F(GitEgressTest, AnAllowedHostIsReachedThroughTheProxyAndNothingElse) {
  DumbGitServer http(root_ / "srv");
  DumbGitServer other(root_ / "srv");  // same files, not allowed
  SshLikeTarget ssh;
  const std::string h = Port(http.port()), o = Port(other.port()), s = Port(ssh.port());
  setenv("SEPP_HTTP_ALLOWED_HOSTS", ("localhost:" + h).c_str(), 1);
  setenv("SEPP_SSH_HOSTS", ("localhost:" + s).c_str(), 1);
  auto egress = LoadGitEgress(home_ / ".sepp/settings.toml");
  ASSERT_TRUE(egress.ok()) << egress.error().message;
  sandbox::Policy p = PolicyWith(*egress);
  ASSERT_EQ(p.net, sandbox::NetMode::kProxy);

  auto clone = Sh("git clone -q http://localhost:" + h + "/remote.git /tmp/c && git -C /tmp/c log --format=%s", p);
  ASSERT_EQ(clone.error, "");
  EXPECT_NE(clone.output.find("seed commit"), std::string::npos) << clone.output;
  EXPECT_GT(http.connections(), 0);

  // Another port of the same machine, another name: refused by the proxy.
  auto port = Sh("git clone -q http://localhost:" + o + "/remote.git /tmp/d; echo rc=$?", p);
  EXPECT_NE(port.output.find("rc=128"), std::string::npos) << port.output;
  EXPECT_NE(port.output.find("403"), std::string::npos) << port.output;
  auto name = Sh("git ls-remote https://example.com/x.git; echo rc=$?", p);
  EXPECT_NE(name.output.find("rc=128"), std::string::npos) << name.output;
  EXPECT_EQ(other.connections(), 0);

  // SSH: ssh's own banner arrives at the allowed target through the tunnel.
  auto over_ssh = Sh("git ls-remote ssh://git@localhost:" + s + "/remote.git; echo rc=$?", p);
  EXPECT_EQ(ssh.client_banner().rfind("SSH-2.0-", 0), 0u) << over_ssh.output << ssh.client_banner();
  // To any other port or host, the tunnel is refused with the proxy's reason.
  auto ssh_other = Sh("git ls-remote ssh://git@localhost:" + o + "/remote.git; echo rc=$?; "
                      "git ls-remote ssh://git@example.com/remote.git; echo rc=$?", p);
  EXPECT_NE(ssh_other.output.find("egress proxy refused localhost:" + o), std::string::npos) << ssh_other.output;
  EXPECT_NE(ssh_other.output.find("egress proxy refused example.com:22"), std::string::npos) << ssh_other.output;
  EXPECT_NE(ssh_other.output.find("not on the sandbox policy's domain allowlist"), std::string::npos);
  EXPECT_EQ(other.connections(), 0);

  // Around the proxy: direct connections to the allowed services fail.
  int before = ssh.connections();
  auto direct = Sh("exec 3<>/dev/tcp/127.0.0.1/" + s + " && echo CONNECTED", p);
  EXPECT_EQ(direct.output.find("CONNECTED"), std::string::npos) << direct.output;
  EXPECT_EQ(ssh.connections(), before);

  // The keys and the agent stay out.
  auto keys = Sh("cat ~/.ssh/id_ed25519; ls ~/.ssh; echo \"agent=[$SSH_AUTH_SOCK]\"", p);
  EXPECT_EQ(keys.output.find("SECRETKEY"), std::string::npos) << keys.output;
  EXPECT_EQ(keys.output.find("id_ed25519\n"), std::string::npos) << keys.output;
  EXPECT_NE(keys.output.find("agent=[]"), std::string::npos) << keys.output;
}

TEST_F(GitEgressTest, HostListsAreCheckedAndTheEnvironmentWinsOverSettings) {
  auto ok = ParseGitEgress("GitHub.com, *.example.org  gitlab.com:8443", "github.com;x");
  EXPECT_FALSE(ok.ok());  // ";" is not part of a host name
  auto g = ParseGitEgress("GitHub.com, *.example.org  gitlab.com:8443", "github.com, git.example.com:2222");
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->http_hosts, (std::vector<std::string>{"github.com", "*.example.org", "gitlab.com:8443"}));
  EXPECT_EQ(g->ssh_hosts, (std::vector<std::string>{"github.com:22", "git.example.com:2222"}));
  for (auto [http, ssh, var] : {std::tuple{"*", "", "SEPP_HTTP_ALLOWED_HOSTS"},
                                std::tuple{"", "*", "SEPP_SSH_HOSTS"},
                                std::tuple{"", "*.example.com", "SEPP_SSH_HOSTS"},
                                std::tuple{"a.com:99999", "", "SEPP_HTTP_ALLOWED_HOSTS"},
                                std::tuple{"", "host:0", "SEPP_SSH_HOSTS"},
                                std::tuple{"evil.com/path", "", "SEPP_HTTP_ALLOWED_HOSTS"},
                                std::tuple{"a\x01" "b.com", "", "SEPP_HTTP_ALLOWED_HOSTS"},
                                std::tuple{"", "[::1]:22", "SEPP_SSH_HOSTS"}}) {
    auto bad = ParseGitEgress(http, ssh);
    ASSERT_FALSE(bad.ok()) << http << " / " << ssh;
    EXPECT_NE(bad.error().message.find(var), std::string::npos) << bad.error().message;
  }

  fs::path settings = home_ / ".sepp/settings.toml";
  fs::create_directories(settings.parent_path());
  std::ofstream(settings) << "model = \"x\"\n[git]\nhttp_allowed_hosts = [\"git.example.com\"]\n"
                             "ssh_hosts = [\"ssh.example.com\"]\n";
  auto from_file = LoadGitEgress(settings);
  ASSERT_TRUE(from_file.ok()) << from_file.error().message;
  EXPECT_EQ(from_file->http_hosts, std::vector<std::string>{"git.example.com"});
  EXPECT_EQ(from_file->ssh_hosts, std::vector<std::string>{"ssh.example.com:22"});
  // Set, even empty, the environment wins for its list.
  setenv("SEPP_SSH_HOSTS", "", 1);
  auto env_wins = LoadGitEgress(settings);
  ASSERT_TRUE(env_wins.ok());
  EXPECT_TRUE(env_wins->ssh_hosts.empty());
  EXPECT_EQ(env_wins->http_hosts, std::vector<std::string>{"git.example.com"});
  unsetenv("SEPP_SSH_HOSTS");
  // A bad file says where.
  std::ofstream(settings) << "[git]\nssh_hosts = \"one.example.com\"\n";
  auto bad = LoadGitEgress(settings);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("settings.toml:2: git.ssh_hosts"), std::string::npos) << bad.error().message;
  std::ofstream(settings) << "[git]\nhttp_allowed_hosts = [\"*\"]\n";
  EXPECT_FALSE(LoadGitEgress(settings).ok());
}

TEST_F(GitEgressTest, OnlyAConfinedPolicyWithoutItsOwnSshCommandIsChanged) {
  auto g = ParseGitEgress("git.example.com", "ssh.example.com");
  ASSERT_TRUE(g.ok());
  sandbox::Policy host = sandbox::DefaultToolPolicy(ws_);
  host.net = sandbox::NetMode::kHost;
  sandbox::Policy before = host;
  ApplyGitEgress(*g, &host);
  EXPECT_EQ(host, before);
  sandbox::Policy off = sandbox::DefaultToolPolicy(ws_);
  off.enabled = false;
  before = off;
  ApplyGitEgress(*g, &off);
  EXPECT_EQ(off, before);
  sandbox::Policy own = sandbox::DefaultToolPolicy(ws_);
  own.env_set["GIT_SSH_COMMAND"] = "ssh -v";
  ApplyGitEgress(*g, &own);
  EXPECT_EQ(own.env_set["GIT_SSH_COMMAND"], "ssh -v");
  EXPECT_EQ(own.allow_domains, (std::vector<std::string>{"git.example.com", "ssh.example.com:22"}));
  // Applied twice (a sub-agent's policy is the session's): no repeats.
  ApplyGitEgress(*g, &own);
  EXPECT_EQ(own.allow_domains.size(), 2u);
}

}  // namespace
}  // namespace sepp::tools
