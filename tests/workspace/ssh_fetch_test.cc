// git over SSH from inside the sandbox, against a real OpenSSH server
// (private_sshd.h: sshd on a loopback port with keys made here): with
// SEPP_SSH_HOSTS naming it, git in a sandboxed child clones and then
// fetches through the egress proxy's CONNECT tunnel, authenticating with a
// deploy key the workspace holds and checking the server's host key
// against the known_hosts given (or learning it on first use); with the
// host not allowed, another port, or a host key that does not match, git
// fails with ssh's or the proxy's reason and the server sees no login (no
// connection at all when the proxy refuses). Skips, saying so, only when
// sshd is not installed (scripts/setup installs openssh-server).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <memory>
#include <string>

#include "tools/git_egress.h"
#include "workspace/egress_fixture.h"
#include "workspace/git_servers.h"
#include "workspace/private_sshd.h"

namespace sepp::tools {
namespace {

namespace fs = std::filesystem;
using testing_git::PrivateSshd;
using testing_git::SshLikeTarget;

class SshFetchTest : public testing_git::EgressFixture {
 protected:
  void SetUp() override {
    EgressFixture::SetUp();
    if (HasFatalFailure()) return;
    std::string sshd = PrivateSshd::Find();
    if (sshd.empty())
      GTEST_SKIP() << "sshd is not installed (apt-get install openssh-server; scripts/setup does): "
                      "the SSH fetch tests need a real server";
    server_ = std::make_unique<PrivateSshd>(sshd, root_ / "sshd");
    ASSERT_EQ(server_->error(), "");
    // The deploy key the project provides: inside the workspace, 0600.
    key_ = ws_ / "deploy_key";
    fs::copy_file(server_->client_key(), key_);
    chmod(key_.c_str(), 0600);
    url_ = "ssh://" + server_->user() + "@localhost:" + Port(server_->port()) + (root_ / "srv/remote.git").string();
  }
  void TearDown() override {
    server_.reset();
    EgressFixture::TearDown();
  }

  sandbox::Policy Allowing(const std::string& ssh_hosts) {
    auto egress = ParseGitEgress("", ssh_hosts);
    EXPECT_TRUE(egress.ok()) << egress.error().message;
    return PolicyWith(egress.ok() ? *egress : GitEgress{});
  }

  // A script's prefix: the known_hosts line (the sandbox's /tmp is its
  // own, so every run starts without one) and the deploy key for ssh.
  std::string Prelude(const std::string& host_key) {
    std::string p;
    if (!host_key.empty())
      p = "printf '%s\\n' '[localhost]:" + Port(server_->port()) + " " + host_key +
          "' > /tmp/sepp-ssh-known_hosts; ";
    return p + "export GIT_SSH_COMMAND=\"${GIT_SSH_COMMAND:-ssh} -i " + key_.string() + "\"; ";
  }

  // A second commit on the remote's main, pushed from outside.
  void AdvanceRemote() {
    std::string cmd = "set -e; export GIT_CEILING_DIRECTORIES='" + root_.string() + "' GIT_CONFIG_NOSYSTEM=1; cd '" +
                      (root_ / "seed").string() + "'; echo more >> f; "
                      "git -c user.name=t -c user.email=t@t commit -qam 'second commit'; "
                      "git push -q '" + (root_ / "srv/remote.git").string() + "' HEAD:refs/heads/main";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  }

  std::unique_ptr<PrivateSshd> server_;
  fs::path key_;
  std::string url_;
};

TEST_F(SshFetchTest, GitClonesAndFetchesOverSshThroughTheTunnelCheckingTheHostKey) {
  sandbox::Policy p = Allowing("localhost:" + Port(server_->port()));
  ASSERT_EQ(p.net, sandbox::NetMode::kProxy);
  const std::string known = server_->host_public_key();

  auto clone = Sh(Prelude(known) + "git clone -q '" + url_ + "' clone && git -C clone log --format=%s", p);
  ASSERT_EQ(clone.error, "");
  EXPECT_EQ(clone.exit_code, 0) << clone.output << server_->log();
  EXPECT_NE(clone.output.find("seed commit"), std::string::npos) << clone.output;
  EXPECT_TRUE(server_->WaitFor("Accepted publickey for " + server_->user(), 1)) << server_->log();
  EXPECT_TRUE(fs::exists(ws_ / "clone/f"));

  // The remote moves on; a later call (a new sandbox, a new /tmp) fetches.
  AdvanceRemote();
  auto fetch = Sh(Prelude(known) + "git -C clone fetch -q origin && git -C clone log --format=%s origin/main", p);
  EXPECT_EQ(fetch.exit_code, 0) << fetch.output << server_->log();
  EXPECT_NE(fetch.output.find("second commit"), std::string::npos) << fetch.output;
  EXPECT_TRUE(server_->WaitFor("Accepted publickey for " + server_->user(), 2)) << server_->log();

  // No known_hosts given: the first key is learned into the sandbox's /tmp.
  std::string key_body = known.substr(known.find(' ') + 1);
  key_body = key_body.substr(0, key_body.find(' '));
  auto first_use = Sh(Prelude("") + "git ls-remote '" + url_ + "' && cat /tmp/sepp-ssh-known_hosts", p);
  EXPECT_EQ(first_use.exit_code, 0) << first_use.output;
  EXPECT_NE(first_use.output.find("refs/heads/main"), std::string::npos) << first_use.output;
  EXPECT_NE(first_use.output.find(key_body), std::string::npos) << first_use.output;
}

TEST_F(SshFetchTest, AHostNotAllowedAnotherPortOrAChangedHostKeyFailsWithTheReason) {
  const std::string known = server_->host_public_key();
  const std::string login = "Accepted publickey";
  SshLikeTarget other;

  // No SSH host at all: no network in the sandbox, nothing reaches sshd.
  auto none = Sh(Prelude(known) + "git clone -q '" + url_ + "' c1; echo rc=$?", PolicyWith(GitEgress{}));
  EXPECT_NE(none.output.find("rc=128"), std::string::npos) << none.output;
  EXPECT_NE(none.output.find("Could not read from remote repository"), std::string::npos) << none.output;

  // Another host allowed, not this one: the proxy refuses and says why.
  auto wrong_host = Sh(Prelude(known) + "git clone -q '" + url_ + "' c2; echo rc=$?", Allowing("git.example.com"));
  EXPECT_NE(wrong_host.output.find("rc=128"), std::string::npos) << wrong_host.output;
  EXPECT_NE(wrong_host.output.find("egress proxy refused localhost:" + Port(server_->port())), std::string::npos)
      << wrong_host.output;
  EXPECT_NE(wrong_host.output.find("not on the sandbox policy's domain allowlist"), std::string::npos)
      << wrong_host.output;
  EXPECT_EQ(server_->Count("Connection from"), 0) << server_->log();

  // This host, another port (a listener there, and the default 22): refused.
  sandbox::Policy p = Allowing("localhost:" + Port(server_->port()));
  std::string other_url = "ssh://" + server_->user() + "@localhost:" + Port(other.port()) + "/srv/remote.git";
  auto port = Sh(Prelude(known) + "git clone -q '" + other_url + "' c3; echo rc=$?; git ls-remote 'ssh://" +
                     server_->user() + "@localhost/srv/remote.git'; echo rc=$?", p);
  EXPECT_NE(port.output.find("egress proxy refused localhost:" + Port(other.port())), std::string::npos)
      << port.output;
  EXPECT_NE(port.output.find("egress proxy refused localhost:22"), std::string::npos) << port.output;
  EXPECT_EQ(port.output.find("rc=0"), std::string::npos) << port.output;
  EXPECT_EQ(other.connections(), 0);
  EXPECT_EQ(server_->Count("Connection from"), 0) << server_->log();

  // The allowed server with a host key other than the one given: ssh
  // stops before authenticating.
  std::string wrong_key = server_->client_public_key();  // a valid key, not the host's
  auto changed = Sh(Prelude(wrong_key) + "git clone -q '" + url_ + "' c4; echo rc=$?", p);
  EXPECT_NE(changed.output.find("rc=128"), std::string::npos) << changed.output;
  EXPECT_NE(changed.output.find("REMOTE HOST IDENTIFICATION HAS CHANGED"), std::string::npos) << changed.output;
  EXPECT_NE(changed.output.find("Host key verification failed"), std::string::npos) << changed.output;
  EXPECT_TRUE(server_->WaitFor("Connection from", 1)) << server_->log();  // it got that far
  EXPECT_EQ(server_->Count(login), 0) << server_->log();
  for (const char* dir : {"c1", "c2", "c3", "c4"}) EXPECT_FALSE(fs::exists(ws_ / dir)) << dir;

  // And the same server with its own key given works (the failures above
  // were the policy's and the key's, not the set-up's).
  auto ok = Sh(Prelude(known) + "git ls-remote '" + url_ + "'", p);
  EXPECT_EQ(ok.exit_code, 0) << ok.output << server_->log();
  EXPECT_TRUE(server_->WaitFor(login, 1)) << server_->log();
}

}  // namespace
}  // namespace sepp::tools
