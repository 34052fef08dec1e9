// How a tilescope program turns its command line into an exit status; shared by tilescope and
// tilescope-report so that both answer bad input the same way.
#include <yaml-cpp/exceptions.h>

#include <iostream>

#include "Commands.hpp"
#include "common/InputError.hpp"

namespace ts::cli {

int parse_and_run(CLI::App& app, int argc, char** argv, const std::function<int()>& run) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  try {
    return run();
  } catch (const InputError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const YAML::Exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace ts::cli
