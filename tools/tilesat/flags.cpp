// flags.cpp: every flag of every verb, with its default and help text, in one table.
#include "cli.h"

namespace tilesat::cli {
namespace {

void input_file(CLI::App& a, Options& o) {
  a.add_option("input", o.input, "TTIR or StableHLO text file ('-' reads standard input)")
      ->required();
}
void function_name(CLI::App& a, Options& o) {
  a.add_option("--function", o.function,
               "function to use (default: the file's only function, else @main)");
}

const Flag kFlags[] = {
    {"print", input_file},
    {"print",
     [](CLI::App& a, Options& o) {
       a.add_option("-o,--output", o.output, "where to write the text ('-' is standard output)")
           ->capture_default_str();
     }},
    {"eval", input_file},
    {"eval", function_name},
    {"eval",
     [](CLI::App& a, Options& o) {
       a.add_option("--input", o.inputs, "NAME=FILE.npy: the value of argument NAME (repeatable)");
     }},
    {"eval",
     [](CLI::App& a, Options& o) {
       a.add_option("--random-inputs", o.random_seed,
                    "draw every argument not given by --input from this seed, and write the "
                    "drawn values to the output dir as <argname>.npy");
     }},
    {"eval",
     [](CLI::App& a, Options& o) {
       a.add_option("--output-dir", o.output_dir,
                    "directory for result0.npy, result1.npy, ... (created if missing)")
           ->required();
     }},
    {"dot", input_file},
    {"dot", function_name},
    {"opt", input_file},
    {"opt",
     [](CLI::App& a, Options& o) {
       a.add_option("--emit", o.emit, "output form: ttir (ttnn comes with the cost model)")
           ->check(CLI::IsMember({"ttir"}))
           ->capture_default_str();
     }},
    {"opt",
     [](CLI::App& a, Options& o) {
       a.add_option("--rule-set", o.rule_sets,
                    "a shipped rule set by name (repeatable; default: all of them)");
     }},
    {"opt",
     [](CLI::App& a, Options& o) {
       a.add_option("--rules", o.rule_files, "an extra rule file (repeatable)");
     }},
    {"opt",
     [](CLI::App& a, Options& o) {
       a.add_flag("--stats", o.stats, "print the saturation report to standard error");
     }},
    {"opt",
     [](CLI::App& a, Options& o) {
       a.add_flag("--explain", o.explain,
                  "print, to standard error, the rewrites behind each result and the matches "
                  "guards declined");
     }},
    {"opt",
     [](CLI::App& a, Options& o) {
       a.add_option("--iter-limit", o.iter_limit, "saturation iterations (default 30)");
     }},
    {"opt",
     [](CLI::App& a, Options& o) {
       a.add_option("--node-limit", o.node_limit, "e-graph nodes (default 10000)");
     }},
    {"opt",
     [](CLI::App& a, Options& o) {
       a.add_option("--time-limit", o.time_limit, "saturation seconds (default 5)");
     }},
    {"verify-rules",
     [](CLI::App& a, Options& o) {
       a.add_option("files", o.rule_paths, "rule files (default: every shipped rule set)");
     }},
};

} // namespace

std::span<const Flag> flags() {
  return kFlags;
}

} // namespace tilesat::cli
