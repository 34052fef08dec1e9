#include "SweepRanks.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/InputError.hpp"
#include "mapper/OperatorPrediction.hpp"

#if defined(TILESCOPE_HAVE_MPI)
#include <mpi.h>
#endif

namespace ts::cli {

std::optional<int> launched_ranks() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
    if (const char* v = std::getenv(name)) return std::atoi(v);
  return std::nullopt;
}

#if !defined(TILESCOPE_HAVE_MPI)

bool have_mpi() { return false; }

int run_sweep_on_ranks(const SweepSpace&, const RankSweepCallbacks&, const std::atomic<bool>*) {
  throw std::logic_error("this tilescope was built without MPI");
}

#else

namespace {

enum Tag : int {
  kResult = 2,  // worker -> 0: a finished point (sweep_point_json); empty: one it did not finish
  kPoint = 3,   // 0 -> worker: the index of a point to compute (int64), -1: no more, stop
};

// Points a worker holds at once: the one it computes and the next, already in its receive queue,
// so that it never idles while rank 0 notices a result and hands out another (rank 0 sleeps up
// to 2 ms between probes, a fifth of a small point). One more would only unbalance the end.
constexpr int kPointsInHand = 2;

// A rank that waits must leave its core to the ranks that compute: OpenMPI's blocking receive
// spins at full speed, which on a machine with as many ranks as cores halves the speed of the
// rank beside it. So a waiting rank probes and sleeps, backing off from 50 us to 2 ms: a point
// takes milliseconds to seconds, so the hand-out latency this adds is small against it.
MPI_Status wait_for_message(int source, int tag) {
  auto pause = std::chrono::microseconds(50);
  while (true) {
    int arrived = 0;
    MPI_Status status;
    MPI_Iprobe(source, tag, MPI_COMM_WORLD, &arrived, &status);
    if (arrived) return status;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(2000));
  }
}

// TILESCOPE_SWEEP_EXIT_AFTER=RANK:K makes that rank exit abruptly (no MPI_Finalize, status 3)
// once it has computed K points: how the tests kill a rank half way (docs/sweep.md).
std::optional<size_t> exit_after(int rank) {
  const char* v = std::getenv("TILESCOPE_SWEEP_EXIT_AFTER");
  if (!v) return std::nullopt;
  const std::string text(v);
  const size_t colon = text.find(':');
  if (colon == std::string::npos || std::atoi(text.substr(0, colon).c_str()) != rank)
    return std::nullopt;
  return static_cast<size_t>(std::atoll(text.substr(colon + 1).c_str()));
}

void send_index(int worker, int64_t index) {
  MPI_Send(&index, 1, MPI_INT64_T, worker, kPoint, MPI_COMM_WORLD);
}

void coordinate(const SweepSpace& sweep, const RankSweepCallbacks& callbacks,
                const std::atomic<bool>* cancel, int ranks) {
  const std::vector<size_t> pending = callbacks.pending();
  std::mutex lock;  // the hand-out counter and the store, shared with the local thread
  size_t next = 0;
  const auto take = [&]() -> int64_t {
    const std::lock_guard<std::mutex> hold(lock);
    if (next >= pending.size() || (cancel && cancel->load())) return -1;
    return static_cast<int64_t>(pending[next++]);
  };
  const std::optional<size_t> stop_after = exit_after(0);
  // Rank 0 computes too, on its own thread: MPI is called from this one only (FUNNELED).
  std::thread local([&] {
    size_t computed = 0;
    for (int64_t i = take(); i >= 0; i = take()) {
      try {
        const SweepPointRecord point = sweep.evaluate(static_cast<size_t>(i), cancel);
        const std::lock_guard<std::mutex> hold(lock);
        callbacks.finished(point);
      } catch (const MapperCancelled&) {
        return;
      }
      if (stop_after && ++computed >= *stop_after) std::_Exit(3);
    }
  });
  // Each worker holds up to kPointsInHand points; it stops once it holds none and none is left.
  std::vector<int> in_hand(static_cast<size_t>(ranks), 0);
  int working = ranks - 1;
  const auto hand_out = [&](int worker) {
    int& held = in_hand[static_cast<size_t>(worker)];
    while (held < kPointsInHand) {
      const int64_t index = take();
      if (index < 0) break;
      send_index(worker, index);
      ++held;
    }
    if (held == 0) {
      send_index(worker, -1);
      --working;
    }
  };
  for (int worker = 1; worker < ranks; ++worker) hand_out(worker);
  while (working > 0) {
    const MPI_Status status = wait_for_message(MPI_ANY_SOURCE, kResult);
    int bytes = 0;
    MPI_Get_count(&status, MPI_CHAR, &bytes);
    std::string text(static_cast<size_t>(bytes), '\0');
    MPI_Recv(text.data(), bytes, MPI_CHAR, status.MPI_SOURCE, kResult, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    --in_hand[static_cast<size_t>(status.MPI_SOURCE)];
    if (!text.empty()) {
      const SweepPointRecord point = sweep_point_from_json(text);
      const std::lock_guard<std::mutex> hold(lock);
      callbacks.finished(point);
    }
    hand_out(status.MPI_SOURCE);
  }
  local.join();
}

// Completes a send without spinning (MPI_Wait would, as a blocking receive does).
void finish_send(MPI_Request& request) {
  auto pause = std::chrono::microseconds(50);
  while (request != MPI_REQUEST_NULL) {
    int done = 0;
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(2000));
  }
}

void work(const SweepSpace& sweep, const std::atomic<bool>* cancel, int rank) {
  const std::optional<size_t> stop_after = exit_after(rank);
  size_t computed = 0;
  // A result is sent without waiting for rank 0 to take it (a large one waits for its receive),
  // so that the worker goes on with the next point in hand meanwhile.
  std::string sending;
  MPI_Request request = MPI_REQUEST_NULL;
  while (true) {
    wait_for_message(0, kPoint);
    int64_t index = -1;
    MPI_Recv(&index, 1, MPI_INT64_T, 0, kPoint, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (index < 0) break;
    std::string text;
    try {
      text = sweep_point_json(sweep.evaluate(static_cast<size_t>(index), cancel));
    } catch (const MapperCancelled&) {
      // Stopped: given back empty; rank 0 hands out nothing more once cancelled.
    }
    if (!text.empty() && stop_after && ++computed >= *stop_after) std::_Exit(3);
    finish_send(request);
    sending = std::move(text);
    MPI_Isend(sending.data(), static_cast<int>(sending.size()), MPI_CHAR, 0, kResult,
              MPI_COMM_WORLD, &request);
  }
  finish_send(request);
}

}  // namespace

bool have_mpi() { return true; }

int run_sweep_on_ranks(const SweepSpace& sweep, const RankSweepCallbacks& callbacks,
                       const std::atomic<bool>* cancel) {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  try {
    if (rank == 0)
      coordinate(sweep, callbacks, cancel, ranks);
    else
      work(sweep, cancel, rank);
  } catch (const InputError& e) {
    // A rank that cannot go on (rank 0 cannot write the store) ends them all: the others would
    // wait for it forever. Said as main() says it, with its status.
    std::cerr << e.what() << "\n";
    MPI_Abort(MPI_COMM_WORLD, 2);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return rank;
}

#endif

}  // namespace ts::cli
