// Editing the prompt in the user's own editor (Ctrl+G): the text goes to a
// private temporary file, $VISUAL (else $EDITOR) runs on it through /bin/sh
// with the terminal handed over and without sepp's credentials in its
// environment, and the file's text comes back. The caller
// suspends and resumes the terminal around it.
#pragma once
#include <string>

#include "base/result.h"

namespace sepp::front::tui {

// The edited text (one trailing newline, which editors add, removed).
// Errors: no editor set, the file cannot be written, the editor failed (its
// exit status); each says what to do. The prompt is unchanged then.
Result<std::string> EditInExternalEditor(const std::string& text);

}  // namespace sepp::front::tui
