// Opening the files the tools read and update: regular files only, without
// ever blocking, with every read bounded, and updates of one file
// serialised.
//
// A FIFO, device or socket is refused before it is opened, and the open
// itself is non-blocking and checked again on the descriptor, so a swap of
// the file for a FIFO between the check and the open cannot leave a tool
// thread waiting for a writer that never comes.
#pragma once
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <string>

#include "base/fd.h"
#include "base/result.h"

namespace sepp::tools {

// The file at path (symlinks followed) opened read-only, if it is a regular
// file; else an error in plain words ("is a directory", "is not a regular
// file (a device, pipe or socket)", or the errno). Kind "not_found" when it
// does not exist.
Result<UniqueFd> OpenRegularFile(const std::filesystem::path& path);

// All of a regular file, refused (kind "too_large") when it is larger than
// max_bytes, so that no call can make sepp hold an arbitrary amount.
Result<std::string> ReadRegularFile(const std::filesystem::path& path, size_t max_bytes);

// The first n bytes of an open file (fewer if it is shorter), read with
// pread so the file position stays where it is.
std::string ReadPrefix(int fd, size_t n);

// One line of f with at most keep bytes of it kept in *line (the rest is
// read and dropped); *full_bytes is the whole line's length without its
// "\n". False at the end of the file. A 1.5 GiB line costs keep bytes.
bool ReadBoundedLine(std::FILE* f, size_t keep, std::string* line, uint64_t* full_bytes);

// Held by write and edit from reading a file to replacing it: two calls on
// one file in one parallel batch run one after the other, so neither edit
// is lost. Keyed by the resolved path (a link and its target share a lock).
std::unique_lock<std::mutex> LockFileForUpdate(const std::filesystem::path& path);

}  // namespace sepp::tools
