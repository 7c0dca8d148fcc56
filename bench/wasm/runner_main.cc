// wasm_bench_run: the `sepp wasm` command built on its own (engine + base
// only), so the benchmark does not depend on the whole app building.
//   wasm_bench_run run FILE.wasm --invoke NAME   ==   sepp wasm run ...
#include "app/commands.h"

int main(int argc, char** argv) { return sepp::app::RunWasmCommand(argc, argv); }
