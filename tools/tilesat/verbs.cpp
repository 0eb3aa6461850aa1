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
};

} // namespace

std::span<const Verb> verbs() {
  return kVerbs;
}

} // namespace tilesat::cli
