// measured_csv.cpp: reading a CSV of measured times by header name.
#include "measured_csv.h"

#include "csv_fields.h"

#include <filesystem>
#include <fmt/format.h>

namespace tilesat::bench {

MeasuredCsv::MeasuredCsv(std::string path, const std::vector<std::string>& required)
    : path_(std::move(path)), in_(path_) {
  if (!in_) throw Error(fmt::format("{}: cannot open file", path_));
  std::string header;
  if (!std::getline(in_, header))
    throw Error(SourceLoc{path_, 1, 0}, "empty file (expected a header)");
  std::vector<std::string> names = split_csv(header);
  for (size_t i = 0; i < names.size(); ++i) col_[names[i]] = i;
  for (const std::string& r : required)
    if (!col_.count(r)) throw Error(SourceLoc{path_, 1, 0}, fmt::format("missing column '{}'", r));
}

bool MeasuredCsv::next() {
  std::string text;
  while (std::getline(in_, text)) {
    ++line_;
    if (text.empty() || text == "\r") continue;
    fields_ = split_csv(text);
    return true;
  }
  return false;
}

const std::string& MeasuredCsv::get(const std::string& column) const {
  auto it = col_.find(column);
  if (it == col_.end() || it->second >= fields_.size())
    throw at_row(fmt::format("missing value for column '{}'", column));
  return fields_[it->second];
}

Error MeasuredCsv::bad(const std::string& column, const std::string& why) const {
  return at_row(fmt::format("column '{}': {} (got '{}')", column, why, get(column)));
}

Error MeasuredCsv::at_row(const std::string& message) const {
  return Error(SourceLoc{path_, line_, 0}, message);
}

int64_t MeasuredCsv::positive_int(const std::string& column) const {
  std::optional<int64_t> v = parse_positive(get(column));
  if (!v) throw bad(column, "expected a positive integer");
  return *v;
}

double MeasuredCsv::measured_us() const {
  const std::string& s = get("measured_us");
  try {
    size_t used = 0;
    double v = std::stod(s, &used);
    if (used == s.size() && v > 0) return v;
  } catch (const std::exception&) {
  }
  throw bad("measured_us", "expected a positive number of microseconds");
}

const std::string& MeasuredCsv::kind() const {
  const std::string& k = get("kind");
  if (k != "measured" && k != "perf_target") throw bad("kind", "expected measured or perf_target");
  return k;
}

cost::Device& cached_device(std::map<std::string, cost::Device>& cache, const std::string& name,
                            const std::string& file, int line, const std::string& column) {
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  try {
    // A descriptor path is taken from the file's own directory.
    std::string dir = std::filesystem::path(file).parent_path().string();
    return cache.emplace(name, cost::load_device(name, dir)).first->second;
  } catch (const Error& e) {
    throw Error(SourceLoc{file, line, 0},
                fmt::format("column '{}': {}", column, e.diagnostic().message));
  }
}

const cost::Device& MeasuredCsv::device(std::map<std::string, cost::Device>& cache,
                                        const std::string& column) const {
  return cached_device(cache, get(column), path_, line_, column);
}

int run_on_csv(int argc, char** argv, const char* name,
               const std::function<int(const std::string&)>& run) {
  if (argc != 2) {
    fmt::print(stderr, "usage: {} FILE.csv\n", name);
    return 2;
  }
  try {
    return run(argv[1]);
  } catch (const Error& e) {
    fmt::print(stderr, "{}: {}\n", name, e.what());
    return 1;
  }
}

} // namespace tilesat::bench
