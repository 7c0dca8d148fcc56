//! sepp plugin SDK for Rust (plugin ABI v1, docs/plugins.md): the imports of
//! `sepp:core` and safe wrappers for the call's input, output, error text and
//! log. One file, included by the plugin with
//! `#[path = ".../sdk/rust/sepp_plugin.rs"] mod sepp_plugin;`, so a plugin
//! builds with plain `rustc` (Debian's 1.63 with libstd-rust-dev-wasm32):
//!
//!   rustc --edition 2021 --target wasm32-wasi --crate-type cdylib -O \
//!         -C link-arg=--strip-all -o shout.wasm lib.rs
//!
//! With `--target wasm32-wasi` the plugin has Rust's std: `println!` and
//! `eprintln!` go to the call's log, `std::fs` reaches only the granted roots
//! (the WASI subset of docs/plugins.md). The plugin exports
//! `sepp_abi_version`, `sepp_describe` and `sepp_call_tool` itself
//! (`#[no_mangle] pub extern "C"`). Capability modules are not declared here:
//! a plugin that needs one declares its imports in its own source, so it
//! imports exactly what it asks for.
#![allow(dead_code)]

pub const ABI_VERSION: i32 = 1;

#[link(wasm_import_module = "sepp:core")]
extern "C" {
    fn input_len() -> i32;
    fn input_read(dst: *mut u8, len: i32) -> i32;
    fn output_write(src: *const u8, len: i32);
    fn error_write(src: *const u8, len: i32);
    fn log(level: i32, src: *const u8, len: i32);
}

/// The call's input JSON ({"name","call_id","args","cwd"} for a tool call).
pub fn input() -> String {
    let n = unsafe { input_len() }.max(0) as usize;
    let mut buf = vec![0u8; n];
    let got = unsafe { input_read(buf.as_mut_ptr(), n as i32) }.max(0) as usize;
    buf.truncate(got);
    String::from_utf8_lossy(&buf).into_owned()
}

/// Appends to the call's output (what the model reads when the export returns 0).
pub fn output(text: &str) {
    unsafe { output_write(text.as_ptr(), text.len() as i32) }
}

/// Appends to the error text (what the model reads when the export returns non-zero).
pub fn error(text: &str) {
    unsafe { error_write(text.as_ptr(), text.len() as i32) }
}

/// A line in the tool result's log: 0 debug, 1 info, 2 warn, 3 error.
pub fn log_line(level: i32, text: &str) {
    unsafe { log(level, text.as_ptr(), text.len() as i32) }
}

/// The string value of `"key":"…"` in `json` (sepp writes compact JSON), with
/// the escapes \" \\ \/ \n \t \uXXXX undone; None when absent or not a string.
/// Enough for flat tool arguments; a plugin with nested ones brings a parser.
pub fn json_string(json: &str, key: &str) -> Option<String> {
    let needle = format!("\"{}\":", key);
    let start = json.find(&needle)? + needle.len();
    let rest = json[start..].trim_start();
    let mut chars = rest.strip_prefix('"')?.chars();
    let mut out = String::new();
    loop {
        match chars.next()? {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'u' => {
                    let hex: String = chars.by_ref().take(4).collect();
                    out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?).unwrap_or('\u{fffd}'));
                }
                c => out.push(c),
            },
            c => out.push(c),
        }
    }
}

/// `text` as a JSON string literal.
pub fn json_quote(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
