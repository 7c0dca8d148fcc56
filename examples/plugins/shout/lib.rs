//! An example plugin in Rust with std (wasm32-wasi): one tool, `shout`, that
//! upper-cases a text and says when it did so. `println!` goes to the call's
//! log, `SystemTime` reads the WASI clock. It needs no capability. Build:
//!   rustc --edition 2021 --target wasm32-wasi --crate-type cdylib -O \
//!         -C link-arg=--strip-all -o shout.wasm lib.rs
#[path = "../../../sdk/rust/sepp_plugin.rs"]
mod sepp_plugin;

use std::time::SystemTime;

#[no_mangle]
pub extern "C" fn sepp_abi_version() -> i32 {
    sepp_plugin::ABI_VERSION
}

#[no_mangle]
pub extern "C" fn sepp_describe() -> i32 {
    sepp_plugin::output(concat!(
        r#"{"name":"shout","version":"0.1.0","tools":[{"name":"shout","#,
        r#""description":"Repeats a text in capitals.","#,
        r#""input_schema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}]}"#
    ));
    0
}

#[no_mangle]
pub extern "C" fn sepp_call_tool() -> i32 {
    let input = sepp_plugin::input();
    let text = match sepp_plugin::json_string(&input, "text") {
        Some(t) => t,
        None => {
            sepp_plugin::error("shout: give a \"text\" (a string)");
            return 1;
        }
    };
    let secs = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    println!("shouting {} characters at {}", text.chars().count(), secs);
    sepp_plugin::output(&format!("{}! (from Rust)", text.to_uppercase()));
    0
}
