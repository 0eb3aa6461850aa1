// main.cpp: builds the command line from the verb and flag tables, runs one verb, and turns
// every failure into a one-line `tilesat: error: ...` with a non-zero exit code.
#include "cli.h"
#include "tilesat/graph/diagnostic.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fmt/format.h>
#include <iostream>

namespace {

// Exit codes (docs/cli.md).
constexpr int kExitInputError = 1; // bad input file or values
constexpr int kExitUsageError = 2; // bad command line
constexpr int kExitInternalError = 3;

void print_error(const std::string& message) {
  std::fprintf(stderr, "tilesat: error: %s\n", message.c_str());
}

} // namespace

int main(int argc, char** argv) {
  using namespace tilesat::cli;
  CLI::App app{"tilesat: an e-graph optimizer for tile-based AI accelerators", "tilesat"};
  app.require_subcommand(1);
  Options options;
  const Verb* chosen = nullptr;
  for (const Verb& v : verbs()) {
    CLI::App* sub = app.add_subcommand(std::string(v.name), std::string(v.summary));
    for (const Flag& f : flags()) {
      if (f.verb == v.name) f.declare(*sub, options);
    }
    sub->callback([&chosen, &v] { chosen = &v; });
  }
  if (argc > 1 && argv[1][0] != '-') {
    std::string verb = argv[1], names;
    bool known = false;
    for (const Verb& v : verbs()) {
      known = known || v.name == verb;
      names += (names.empty() ? "" : ", ") + std::string(v.name);
    }
    if (!known) {
      print_error(fmt::format("unknown verb '{}' (verbs: {})", verb, names));
      return kExitUsageError;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    if (what.empty()) what = e.get_name();
    print_error(what + " (see 'tilesat --help')");
    return kExitUsageError;
  }
  try {
    int code = chosen->run(options);
    // What the verb printed must have reached standard output (a full disk, /dev/full).
    std::cout.flush();
    if (std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout)
      throw tilesat::Error(fmt::format("cannot write to standard output: {}",
                                       std::strerror(errno != 0 ? errno : EIO)));
    return code;
  } catch (const tilesat::Error& e) {
    if (e.diagnostic().loc.known()) {
      std::fprintf(stderr, "%s\n", e.what());
    } else {
      print_error(e.diagnostic().message);
    }
    return kExitInputError;
  } catch (const tilesat::InternalError& e) {
    print_error(fmt::format("internal error: {}", e.what()));
    return kExitInternalError;
  } catch (const std::bad_alloc&) {
    // The input asks for more memory than the machine gives (tensors check their size first;
    // this catches the rest): a property of the input, not a fault of the tool.
    print_error("out of memory: the input needs more host memory than this machine has");
    return kExitInputError;
  } catch (const std::exception& e) {
    print_error(e.what());
    return kExitInternalError;
  }
}
