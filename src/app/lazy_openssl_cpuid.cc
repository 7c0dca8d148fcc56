// OpenSSL probes the CPU (a dozen cpuid instructions) from the .init section
// of every program that links libcrypto, before main. In a VM each cpuid
// traps to the hypervisor (~3.6 us here), so that probe was ~4 % of the
// start-up of every sepp command, including the many that never open a TLS
// connection (`sepp sandbox`, `sepp --version`). The sepp binary is linked
// with --wrap=OPENSSL_cpuid_setup (src/app/CMakeLists.txt): the call from
// .init lands here and is skipped; OpenSSL's own OPENSSL_init_crypto() calls
// it again before any cryptography runs (the first SSL_CTX_new), and that
// call goes through.
namespace {
bool past_init_section = false;

// .init_array constructors run after the .init section.
[[gnu::constructor]] void MarkPastInitSection() { past_init_section = true; }
}  // namespace

extern "C" void __real_OPENSSL_cpuid_setup(void);

extern "C" void __wrap_OPENSSL_cpuid_setup(void) {
  if (past_init_section) __real_OPENSSL_cpuid_setup();
}
