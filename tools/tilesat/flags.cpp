// flags.cpp: every flag of every verb, with its default and help text, in one table.
#include "cli.h"

#include <cmath>
#include <cstdlib>
#include <fmt/format.h>

namespace tilesat::cli {
namespace {

void input_file(CLI::App& a, Options& o) {
  a.add_option("input", o.input,
               "TTIR or StableHLO text file ('-' reads standard input), or an ONNX model (.onnx)")
      ->required();
  a.add_option("--outputs", o.outputs,
               "NAME[,NAME...]: for an ONNX model, import these values (node outputs, by the "
               "model's names) as the results, and only what computes them; plans the static "
               "part of a model whose tail has value-dependent shapes (NonZero, "
               "NonMaxSuppression)")
      ->delimiter(',');
  a.add_option("--dim", o.dims,
               "NAME=SIZE[,NAME=SIZE...]: for an ONNX model, the size of each symbolic dim named "
               "NAME (an export's dynamic axes: batch, sequence or cache length); repeatable")
      ->delimiter(',');
}
void function_name(CLI::App& a, Options& o) {
  a.add_option("--function", o.function,
               "function to use (default: the file's only function, else @main)");
}

void rule_set_flag(CLI::App& a, Options& o) {
  a.add_option("--rule-set", o.rule_sets,
               "NAME[,NAME...]: shipped rule sets by name (repeatable; default: all but the "
               "opt-in ones)")
      ->delimiter(',');
}
void rules_flag(CLI::App& a, Options& o) {
  a.add_option("--rules", o.rule_files, "an extra rule file (repeatable)");
}
// A finite number of seconds: > 0, or >= 0 with `zero_ok` (CLI11's number checks let "nan"
// through, as nan < 0 and nan <= 0 are both false).
CLI::Validator seconds(bool zero_ok) {
  return CLI::Validator(
      [zero_ok](std::string& s) -> std::string {
        char* end = nullptr;
        double v = std::strtod(s.c_str(), &end);
        if (end == s.c_str() || *end != '\0' || !std::isfinite(v) || v < 0 || (v == 0 && !zero_ok))
          return fmt::format("expected a finite number of seconds {} 0, got {}",
                             zero_ok ? ">=" : ">", s);
        return "";
      },
      "SECONDS");
}

// A seed: an integer from 0 to 2^64 - 1.
CLI::Validator seed() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        bool digits = !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
        if (!digits || s.size() > 20 || (s.size() == 20 && s > "18446744073709551615"))
          return fmt::format("expected a seed from 0 to 18446744073709551615, got {}", s);
        return "";
      },
      "SEED");
}

void iter_limit_flag(CLI::App& a, Options& o) {
  a.add_option("--iter-limit", o.iter_limit, "saturation iterations (default 30)")
      ->check(CLI::Range(size_t{1}, size_t{1} << 20));
}
void node_limit_flag(CLI::App& a, Options& o) {
  a.add_option("--node-limit", o.node_limit,
               "e-graph nodes (default 10000, or 4 per op of a larger model)")
      ->check(CLI::Range(size_t{1}, size_t{1} << 31));
}
void time_limit_flag(CLI::App& a, Options& o) {
  a.add_option("--time-limit", o.time_limit, "saturation seconds (default 5)")
      ->check(seconds(false));
}
void random_init_flag(CLI::App& a, Options& o) {
  a.add_option("--random-init", o.random_init,
               "scale of drawn floats: uniform (all in [-1, 1)) or fan-in (contraction weights "
               "with variance 1/fan-in, so deep models stay finite, and variances under a sqrt "
               "or log in [0.5, 1.5)); default: uniform for "
               "eval (as `run` draws), fan-in for check")
      ->check(CLI::IsMember({"uniform", "fan-in"}));
}
void device_flag(CLI::App& a, Options& o) {
  a.add_option("--device", o.device,
               "plan for this device: a shipped descriptor name (see `tilesat devices`) or "
               "a descriptor file (.json); extraction then minimises predicted time");
}
void fidelity_flag(CLI::App& a, Options& o) {
  a.add_option("--math-fidelity", o.math_fidelity, "matmul math fidelity of the plan")
      ->check(CLI::IsMember({"LoFi", "HiFi2", "HiFi3", "HiFi4"}))
      ->capture_default_str();
  a.add_flag("--trace,!--no-trace", o.trace,
             "price ops as replayed from a captured trace (default: each op costs its device "
             "launch) or, --no-trace, as dispatched one by one from the host (the device "
             "descriptor's measured host dispatch time per op)");
  a.add_flag("--no-const-eval", o.no_const_eval,
             "plan work on weights and constants (tilizing, transposes, folded subgraphs) in "
             "every inference instead of once when the program loads");
  a.add_option("--weight-args", o.weight_args,
               "GLOB[,GLOB...]: arguments whose names match are weights, constant across "
               "inferences (an ONNX model's initializers are already); '!GLOB' excludes. For "
               "structure-only models: --weight-args '*,!input'")
      ->delimiter(',');
  a.add_option("--compute-dtype", o.compute_dtype,
               "compute the model in bf16 or bfp8_b: f32 weights and constants are converted "
               "once when the program loads (const-eval), inputs on entry, results back to f32")
      ->check(CLI::IsMember({"f32", "bf16", "bfp8_b"}));
}
void extract_time_limit_flag(CLI::App& a, Options& o) {
  a.add_option("--extract-time-limit", o.extract_time_limit,
               "seconds of exact extraction with Z3 after the dynamic program (default 0: "
               "the dynamic program only)")
      ->check(seconds(true));
}

void threads_flag(CLI::App& a, Options& o) {
  a.add_option("--threads", o.threads,
               "host threads running the device's cores (default: one per hardware thread; at "
               "most 1024)")
      ->check(CLI::Range(1U, 1024U));
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
                    "drawn values to the output dir as <argname>.npy")
           ->check(seed());
     }},
    {"eval", random_init_flag},
    {"eval",
     [](CLI::App& a, Options& o) {
       a.add_option("--output-dir", o.output_dir,
                    "directory for one <result name>.npy per result (result0.npy, result1.npy, ... "
                    "for unnamed ones; created if missing)")
           ->required();
     }},
    {"dot", input_file},
    {"dot", function_name},
    {"opt", input_file},
    {"opt",
     [](CLI::App& a, Options& o) {
       a.add_option("--emit", o.emit,
                    "output form: ttir (the optimized program), plan (the device plan with "
                    "placements and predicted times), ttnn (the planned program as TTNN-dialect "
                    "text, with layouts), program (the lowered device program, as text; -o "
                    "writes the program file)")
           ->check(CLI::IsMember({"ttir", "plan", "ttnn", "program"}))
           ->capture_default_str();
     }},
    {"opt", rule_set_flag},
    {"opt", rules_flag},
    {"opt",
     [](CLI::App& a, Options& o) {
       a.add_flag("--stats", o.stats, "print the saturation report to standard error");
     }},
    {"opt",
     [](CLI::App& a, Options& o) {
       a.add_flag("--timing", o.timing,
                  "print the wall time of each phase to standard error: load, saturate, "
                  "extract (the dynamic program, the sharing refinement, exact extraction, the "
                  "legality check), the L1 address check, emit");
     }},
    {"opt",
     [](CLI::App& a, Options& o) {
       a.add_flag("--explain", o.explain,
                  "print, to standard error, the rewrites behind each result and the matches "
                  "guards declined");
     }},
    {"opt", iter_limit_flag},
    {"opt", node_limit_flag},
    {"opt", time_limit_flag},
    {"verify-rules",
     [](CLI::App& a, Options& o) {
       a.add_option("files", o.rule_paths, "rule files (default: every shipped rule set)");
     }},
    {"opt", device_flag},
    {"opt",
     [](CLI::App& a, Options& o) {
       a.add_option("--report", o.report_file, "write the plan's JSON report to this file");
     }},
    {"opt", fidelity_flag},
    {"opt", extract_time_limit_flag},
    {"devices",
     [](CLI::App& a, Options& o) {
       a.add_option("devices", o.device_names,
                    "descriptor names or files to show field by field (default: list all)");
     }},
    {"run",
     [](CLI::App& a, Options& o) {
       a.add_option("program", o.input, "a device program file (.tsprog)")->required();
     }},
    {"run",
     [](CLI::App& a, Options& o) {
       a.add_option("--input", o.inputs, "NAME=FILE.npy: the value of input NAME (repeatable)");
     }},
    {"run",
     [](CLI::App& a, Options& o) {
       a.add_option("--random-inputs", o.random_seed,
                    "draw every input not given by --input from this seed (as `eval` does), and "
                    "write the drawn values to the output dir as <name>.npy")
           ->check(seed());
     }},
    {"run",
     [](CLI::App& a, Options& o) {
       a.add_option("--output-dir", o.output_dir,
                    "directory for one <result name>.npy per result (result0.npy, result1.npy, ... "
                    "for unnamed ones; created if missing)");
     }},
    {"run",
     [](CLI::App& a, Options& o) {
       a.add_option("--profile", o.profile_file,
                    "write the profile (per-op host time, predicted device time, cores, L1 in "
                    "use) as JSON to this file ('-' is standard output)");
     }},
    {"run", threads_flag},
    {"check", input_file},
    {"check", function_name},
    {"check", device_flag},
    {"check", rule_set_flag},
    {"check", rules_flag},
    {"check", fidelity_flag},
    {"check", iter_limit_flag},
    {"check", node_limit_flag},
    {"check", time_limit_flag},
    {"check", extract_time_limit_flag},
    {"check",
     [](CLI::App& a, Options& o) {
       a.add_option("--input", o.inputs,
                    "NAME=FILE.npy: the value of argument NAME instead of a drawn one, such as "
                    "token ids within a vocabulary (repeatable)");
       a.add_option("--random-inputs", o.random_seed, "seed of the random inputs (default 1)")
           ->check(seed());
     }},
    {"check", random_init_flag},
    {"check", threads_flag},
    {"opt",
     [](CLI::App& a, Options& o) {
       a.add_option("-o,--output", o.program_file,
                    "write the device program (.tsprog) to this file (implies --emit program) "
                    "with the model's weights, and print one summary line");
       a.add_option("--inline-weights-limit", o.inline_weights_limit,
                    "bytes of stored weights kept inside the program; beyond it they all go to "
                    "FILE.weights beside it")
           ->capture_default_str();
     }},
};

} // namespace

std::span<const Flag> flags() {
  return kFlags;
}

} // namespace tilesat::cli
