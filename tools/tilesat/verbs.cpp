// verbs.cpp: the verbs of `tilesat`, one row each.
#include "cli.h"

namespace tilesat::cli {
namespace {

const Verb kVerbs[] = {
    {"print", "parse and verify a TTIR/StableHLO file and print it as canonical TTIR", run_print},
    {"eval", "evaluate a function with the reference interpreter, writing .npy results", run_eval},
    {"dot", "print a function as a Graphviz graph", run_dot},
    {"opt", "optimize every function with rewrite rules and print canonical TTIR", run_opt},
    {"verify-rules", "check every rule of rule files with Z3 on small symbolic tensors",
     run_verify_rules},
    {"devices", "list the device descriptors, or show one's fields with their sources",
     run_devices},
    {"run", "verify a device program and run it on the CPU model of its device", run_run},
    {"check",
     "optimize, plan, lower and run a function on random inputs, and compare every result with "
     "the reference interpreter on the unoptimized graph",
     run_check},
};

} // namespace

std::span<const Verb> verbs() {
  return kVerbs;
}

} // namespace tilesat::cli
