#include "calibrate/UnitCubeDescent.hpp"

#include <nlopt.hpp>

namespace ts {

void descend_on_unit_cube(const std::function<double(const std::vector<double>&)>& objective,
                          std::vector<double> start, const UnitCubeDescent& settings) {
  using Objective = std::function<double(const std::vector<double>&)>;
  const size_t n = start.size();
  nlopt::opt opt(nlopt::LN_BOBYQA, static_cast<unsigned>(n));
  opt.set_lower_bounds(std::vector<double>(n, 0.0));
  opt.set_upper_bounds(std::vector<double>(n, 1.0));
  opt.set_min_objective([](const std::vector<double>& x, std::vector<double>&,
                           void* data) { return (*static_cast<const Objective*>(data))(x); },
                        const_cast<Objective*>(&objective));
  opt.set_maxeval(settings.max_evaluations);
  opt.set_xtol_abs(settings.xtol_abs);
  opt.set_ftol_abs(settings.ftol_abs);
  opt.set_initial_step(settings.initial_step);
  double minimum = 0;
  try {
    opt.optimize(start, minimum);
  } catch (const nlopt::roundoff_limited&) {
    // Converged as far as floating point allows: the best point seen stands.
  } catch (const nlopt::forced_stop&) {
  }
}

}  // namespace ts
