// data_files.cpp: locating data directories and listing their files.
#include "tilesat/graph/data_files.h"

#include "tilesat/graph/diagnostic.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <limits>
#include <unistd.h>

namespace tilesat {
namespace fs = std::filesystem;

std::string find_data_dir(std::string_view kind, std::initializer_list<const char*> candidates) {
  std::vector<std::string> tried;
  if (const char* env = std::getenv("TILESAT_DATA_DIR"); env != nullptr && *env != '\0') {
    fs::path p = fs::path(env) / kind;
    if (fs::is_directory(p)) return p.string();
    tried.push_back(p.string());
  }
  for (const char* dir : candidates) {
    if (fs::is_directory(dir)) return dir;
    tried.emplace_back(dir);
  }
  throw Error(fmt::format("no {} directory found (tried {}; set TILESAT_DATA_DIR)", kind,
                          fmt::join(tried, ", ")));
}

std::vector<std::string> data_file_names(const std::string& dir, std::string_view extension) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == extension)
      names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string read_user_file(const std::string& path, std::string_view what, uint64_t max_bytes) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error(fmt::format("{}: expected a {}, got a directory", path, what));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open the {}: {}", path, what, std::strerror(errno)));
  std::string out;
  constexpr size_t kChunk = size_t{1} << 20;
  while (in) {
    if (out.size() > max_bytes)
      throw Error(fmt::format("{}: the {} is longer than {} bytes", path, what, max_bytes));
    const size_t at = out.size();
    out.resize(at + kChunk);
    in.read(out.data() + at, static_cast<std::streamsize>(kChunk));
    out.resize(at + static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) throw Error(fmt::format("{}: cannot read the {}", path, what));
  if (out.size() > max_bytes)
    throw Error(fmt::format("{}: the {} is longer than {} bytes", path, what, max_bytes));
  return out;
}

void write_file_atomically(const std::string& path, std::initializer_list<std::string_view> parts,
                           std::string_view what) {
  const std::string tmp = fmt::format("{}.tmp{}", path, ::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0)
    throw Error(fmt::format("{}: cannot create {} to write the {}: {}", path, tmp, what,
                            std::strerror(errno)));
  auto fail = [&](const char* step) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    return Error(fmt::format("{}: cannot {} the {}: {}", path, step, what, std::strerror(err)));
  };
  for (std::string_view part : parts) {
    while (!part.empty()) {
      const ssize_t n = ::write(fd, part.data(), part.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw fail("write");
      part.remove_prefix(static_cast<size_t>(n));
    }
  }
  if (::fsync(fd) != 0) throw fail("flush");
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw Error(fmt::format("{}: cannot write the {}: {}", path, what, std::strerror(err)));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw Error(
        fmt::format("{}: cannot replace it with the new {}: {}", path, what, std::strerror(err)));
  }
}

uint64_t host_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return std::numeric_limits<int64_t>::max();
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
}

} // namespace tilesat
