#pragma once
// `mpirun -n N tilescope sweep ...`: the points of one sweep shared out over MPI ranks. Every
// rank builds the same sweep (SweepSpace) from the same command line (the points are drawn
// deterministically), so only point indices and finished records travel. Rank 0 holds the
// store: it lists the points not stored yet, hands them out one at a time to any rank that asks
// (dynamic balancing: points differ in cost by orders of magnitude), evaluates points itself on
// a second thread, and writes each finished point in its own transaction. A rank that dies takes
// only its current point with it; a rerun computes the points not stored.
#include <atomic>
#include <functional>
#include <optional>
#include <vector>

#include "sweep/SweepSpace.hpp"

namespace ts::cli {

// The launcher's world size from its environment (OpenMPI's OMPI_COMM_WORLD_SIZE, or PMI_SIZE),
// before MPI is started; nullopt outside mpirun.
std::optional<int> launched_ranks();
// Whether this build can share points over ranks (MPI was found when it was built).
bool have_mpi();

struct RankSweepCallbacks {
  // Rank 0: the indices of the points to compute (the store is opened and read here).
  std::function<std::vector<size_t>()> pending;
  // Rank 0: a finished point, from any rank, one call at a time.
  std::function<void(const SweepPointRecord&)> finished;
};

// Runs the sweep over the ranks of MPI_COMM_WORLD (MPI is started and finished here). Returns
// this rank's number. Throws std::logic_error in a build without MPI.
int run_sweep_on_ranks(const SweepSpace& sweep, const RankSweepCallbacks& callbacks,
                       const std::atomic<bool>* cancel);

}  // namespace ts::cli
