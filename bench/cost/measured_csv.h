// measured_csv.h: the rows of a benchmark's CSV of measured times, read by header name, with
// errors naming the file, line and column; and the main() every accuracy benchmark shares.
//
//   MeasuredCsv csv(path, {"op", "device", "measured_us", "kind", "source"});
//   while (csv.next()) {
//     double us = csv.measured_us();    // a positive number, else "file:3: column ..."
//     const Device& d = csv.device(cache, "device");
//   }
#pragma once

#include "tilesat/cost/device.h"
#include "tilesat/graph/diagnostic.h"

#include <cstdint>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tilesat::bench {

class MeasuredCsv {
public:
  /// Opens `path` and checks its header names every column of `required`.
  MeasuredCsv(std::string path, const std::vector<std::string>& required);

  /// Moves to the next non-empty row; false at the end of the file.
  bool next();
  int line() const { return line_; }
  const std::string& path() const { return path_; }
  /// The current row's `column` (an error if the row is short of it).
  const std::string& get(const std::string& column) const;
  /// An error at the current row: "column 'C': why (got 'value')".
  Error bad(const std::string& column, const std::string& why) const;
  /// An error at the current row with no column.
  Error at_row(const std::string& message) const;
  int64_t positive_int(const std::string& column) const;
  /// The `measured_us` column: a positive number of microseconds.
  double measured_us() const;
  /// The `kind` column: "measured" or "perf_target".
  const std::string& kind() const;
  /// The device descriptor `column` names, loaded once into `cache`.
  const cost::Device& device(std::map<std::string, cost::Device>& cache,
                             const std::string& column) const;

private:
  std::string path_;
  std::ifstream in_;
  std::map<std::string, size_t> col_;
  std::vector<std::string> fields_;
  int line_ = 1;
};

/// The device descriptor `name`, loaded once into `cache`; a load error names `file`, `line` and
/// `column`.
cost::Device& cached_device(std::map<std::string, cost::Device>& cache, const std::string& name,
                            const std::string& file, int line, const std::string& column);

/// `name FILE.csv`: runs `run` on the file; prints a usage line (exit 2) or the error (exit 1).
int run_on_csv(int argc, char** argv, const char* name,
               const std::function<int(const std::string&)>& run);

} // namespace tilesat::bench
