// sepp plugin SDK for AssemblyScript (plugin ABI v1, docs/plugins.md): the
// imports of sepp:core and wrappers that move strings as UTF-8. A plugin
// imports this file and exports sepp_abi_version, sepp_describe and
// sepp_call_tool. Build (the compiler pinned in tests/plugins/node):
//
//   asc reverse.ts --outFile reverse.wasm --optimize --runtime stub \
//       --use abort=sdk/assemblyscript/sepp/abort
//
// `--use abort=…` sends AssemblyScript's aborts (a failed assertion, an index
// out of range) to the error text and traps, so the module imports nothing
// from `env`: a plugin imports only sepp:core, and the capability modules it
// declares itself with @external.

export const ABI_VERSION: i32 = 1;

@external("sepp:core", "input_len")
declare function input_len(): i32;
@external("sepp:core", "input_read")
declare function input_read(dst: usize, len: i32): i32;
@external("sepp:core", "output_write")
declare function output_write(src: usize, len: i32): void;
@external("sepp:core", "error_write")
declare function error_write(src: usize, len: i32): void;
@external("sepp:core", "log")
declare function log_write(level: i32, src: usize, len: i32): void;

// The call's input JSON ({"name","call_id","args","cwd"} for a tool call).
export function input(): string {
  const n = input_len();
  const buf = new ArrayBuffer(n);
  const got = input_read(changetype<usize>(buf), n);
  return String.UTF8.decode(got == n ? buf : buf.slice(0, got));
}

// Appends to the call's output (what the model reads when the export returns 0).
export function output(text: string): void {
  const b = String.UTF8.encode(text);
  output_write(changetype<usize>(b), b.byteLength);
}

// Appends to the error text (what the model reads when the export returns non-zero).
export function error(text: string): void {
  const b = String.UTF8.encode(text);
  error_write(changetype<usize>(b), b.byteLength);
}

// A line in the tool result's log: 0 debug, 1 info, 2 warn, 3 error.
export function log(level: i32, text: string): void {
  const b = String.UTF8.encode(text);
  log_write(level, changetype<usize>(b), b.byteLength);
}

// The string value of "key":"…" in json (sepp writes compact JSON), with
// \" \\ \/ \n \t undone; null when absent or not a string. Enough for flat
// tool arguments.
export function jsonString(json: string, key: string): string | null {
  const needle = '"' + key + '":';
  let i = json.indexOf(needle);
  if (i < 0) return null;
  i += needle.length;
  while (i < json.length && json.charCodeAt(i) == 0x20) i++;
  if (i >= json.length || json.charCodeAt(i) != 0x22) return null;
  let out = "";
  for (i++; i < json.length; i++) {
    let c = json.charAt(i);
    if (c == '"') return out;
    if (c == "\\" && i + 1 < json.length) {
      c = json.charAt(++i);
      if (c == "n") c = "\n";
      else if (c == "t") c = "\t";
    }
    out += c;
  }
  return null;
}

// AssemblyScript's abort (--use abort=…): the message to the error text, then a trap.
export function abort(message: string | null, file: string | null, line: u32, column: u32): void {
  error("abort: " + (message ? message : "") + " at " + (file ? file : "?") + ":" + line.toString());
  unreachable();
}
