// Finding tilesat's data files (rule sets, device descriptors) at run time.
//
// Each kind of data lives in its own directory, looked up in order: $TILESAT_DATA_DIR/<kind>,
// then the candidates a module passes (its source directory, for the build tree, then the
// installed data directory).
//
//   std::string dir = find_data_dir("devices", {SOURCE_DIR, INSTALL_DIR});
//   std::vector<std::string> names = data_file_names(dir, ".json");   // {"tiny", ...}
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace tilesat {

/// The first existing directory of $TILESAT_DATA_DIR/`kind` and `candidates`; throws
/// tilesat::Error listing every place tried.
std::string find_data_dir(std::string_view kind, std::initializer_list<const char*> candidates);

/// The names (without extension) of the regular files in `dir` ending in `extension`, sorted.
std::vector<std::string> data_file_names(const std::string& dir, std::string_view extension);

/// Bytes of this machine's physical memory (sysconf), or 2^63 - 1 when unknown.
uint64_t host_memory_bytes();

/// The whole content of the file a user named, `what` saying what it should be ("rule file");
/// throws tilesat::Error naming the path: missing, unreadable, a directory (which an ifstream
/// opens and reads as empty), or longer than `max_bytes` (default: half the machine's memory;
/// a device such as /dev/zero never ends).
///   std::string text = read_user_file("my.rules", "rule file");
std::string read_user_file(const std::string& path, std::string_view what,
                           uint64_t max_bytes = host_memory_bytes() / 2);

/// Writes `parts` one after another to a temporary file beside `path` (unique to the process),
/// flushes it to disk and renames it over `path`: a failed write (a full disk) leaves the old
/// file whole, a symlink at `path` is replaced rather than followed, and two writers of one
/// path do not share a temporary file. `what` names the file in errors ("program").
///   write_file_atomically("out.npy", {bytes}, ".npy file");
void write_file_atomically(const std::string& path, std::initializer_list<std::string_view> parts,
                           std::string_view what);

} // namespace tilesat
