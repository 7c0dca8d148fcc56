// wasm_cli_tool: `sepp wasm` built with only the engine, for the CLI test.
#include "app/commands.h"

int main(int argc, char** argv) { return sepp::app::RunWasmCommand(argc, argv); }
