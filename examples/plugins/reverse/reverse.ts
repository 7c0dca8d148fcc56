// An example plugin in AssemblyScript: one tool, `reverse`, that reverses a
// text. It needs no capability, so it imports only sepp:core. Build:
//   asc reverse.ts --outFile reverse.wasm --optimize --runtime stub \
//       --use abort=../../../sdk/assemblyscript/sepp/abort
import * as sepp from "../../../sdk/assemblyscript/sepp";

export function sepp_abi_version(): i32 {
  return sepp.ABI_VERSION;
}

export function sepp_describe(): i32 {
  sepp.output(
    '{"name":"reverse","version":"0.1.0","tools":[{"name":"reverse",' +
      '"description":"Reverses a text.",' +
      '"input_schema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}]}',
  );
  return 0;
}

export function sepp_call_tool(): i32 {
  const text = sepp.jsonString(sepp.input(), "text");
  if (text == null) {
    sepp.error('reverse: give a "text" (a string)');
    return 1;
  }
  let out = "";
  for (let i = text.length - 1; i >= 0; i--) out += text.charAt(i);
  sepp.log(1, "reversed " + text.length.toString() + " characters");
  sepp.output(out + " (from AssemblyScript)");
  return 0;
}
